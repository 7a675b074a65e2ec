import { z } from 'zod';

// Issue 19 items 2 and 3: the surface options of large surfaces that are
// not loading modes — who sees which tool (`visibility:`) and derived,
// perturbed surfaces (`perturb:`). Kept apart from surface.ts so the
// loading options (`loading:`) live in their own file beside these.

/**
 * `visibility:` — which tools of the surface a task's actor is shown.
 * `all` (the default): every tool. `by_permission`: a tool whose registry
 * contract needs a permission the actor lacks is left out of the request;
 * the registry still enforces the contract if the model calls it anyway.
 */
export const Visibility = z.enum(['all', 'by_permission']);
export type Visibility = z.infer<typeof Visibility>;

const Seed = z.number().int().min(0).max(0xffffffff);

/**
 * Where distractor tools come from, as one string each:
 * `domain:<name>` (that domain's registry tools), `file:<path>` (an OpenAI,
 * Anthropic or MCP tools file, e.g. one `toolmark import mcp` read; path from
 * the project root), or `generated` (near-synonyms of the surface's own tools).
 */
export const DistractorSource = z
  .string()
  .regex(/^(domain:.+|file:.+|generated)$/, 'domain:<name>, file:<path> or generated');
export type DistractorSource = z.infer<typeof DistractorSource>;

/** `perturb.distractors`: tools added to the payload that no action maps to. */
export const DistractorOptions = z
  .strictObject({
    /** Add this many distractors. */
    count: z.number().int().positive().optional(),
    /** Add distractors until the surface has this many tools (the sweep's rungs). */
    total: z.number().int().positive().optional(),
    from: z.array(DistractorSource).min(1).default(['generated']),
    /** Which distractors are drawn from the pool (a larger count keeps the smaller count's picks). */
    seed: Seed.default(0),
  })
  .refine((value) => (value.count === undefined) !== (value.total === undefined), {
    message: 'give exactly one of `count` (how many to add) or `total` (tool count to reach)',
  });
export type DistractorOptions = z.infer<typeof DistractorOptions>;

/** `perturb.descriptions`: `remove` (empty descriptions) or keep the first K words. */
export const DescriptionPerturbation = z.union([
  z.literal('remove'),
  z.strictObject({ truncate_words: z.number().int().nonnegative() }),
]);
export type DescriptionPerturbation = z.infer<typeof DescriptionPerturbation>;

/**
 * `perturb:` on a surface file: the surface is derived from the merged one
 * (its `extends` chain and its own tools) by these steps, in this order:
 * distractors are added, descriptions cut, names made opaque, order shuffled.
 * Not inherited: a surface extending a perturbed one starts from the
 * unperturbed tools.
 */
export const Perturbation = z.strictObject({
  shuffle: z.strictObject({ seed: Seed }).optional(),
  distractors: DistractorOptions.optional(),
  /** `opaque`: every exposed name becomes `tool_01`, `tool_02`, … in payload order. */
  names: z.literal('opaque').optional(),
  descriptions: DescriptionPerturbation.optional(),
});
export type Perturbation = z.infer<typeof Perturbation>;
