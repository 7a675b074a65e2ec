/** The fields that identify a trial across runs, resumes and shards. */
export interface TrialIdentityFields {
  provider: string;
  model: string;
  domain: string;
  surface: string;
  task: string;
  trial: number;
}

/**
 * Deterministic trial identity: provider + model + domain + surface + task +
 * trial. A run folder holds each identity once (readers refuse a second
 * line with the same one: src/run-folder/trials.ts).
 */
export function trialIdentity(fields: TrialIdentityFields): string {
  return JSON.stringify([fields.provider, fields.model, fields.domain, fields.surface, fields.task, fields.trial]);
}
