import { z } from 'zod';
import { Effect } from './tool-call.ts';

/** A canonical capability. Tasks expect actions, never exposed names. */
export const ActionSpec = z.object({
  /** e.g. `ticket.get`, `billing.refund.submit`. */
  id: z.string(),
  description: z.string(),
  effect: Effect,
  /** Permission the action needs, whatever tool carries it (judges writes done through contract-less tools). */
  permission: z.string().nullable(),
  approval: z.enum(['never', 'required']),
  /** Argument field carrying the idempotency key (excluded from approval fingerprints). */
  idempotency_key: z.string().nullable(),
  /** For a write: the preview action whose successful call grants approval under `approve: after_preview`. */
  preview: z.string().optional(),
});
export type ActionSpec = z.infer<typeof ActionSpec>;
