import { isManifestAsParsed, type RunSelection } from '../spec/index.ts';
import { prepareEarlyWarmUp } from './finalizer.ts';
import { codeDigest } from './grading-inputs.ts';
import { createRunProviders, type RunProvider } from './providers.ts';

/**
 * `createRunProviders`, with the main thread's wait for the cassette worker
 * filled. A replay provider is made once the worker has read its cassettes
 * (providers/replay/cassette-prefetch.ts); in the 10k run the pre-flight's
 * main thread sat idle there ~60–110 ms. Made meanwhile, none of it needing
 * the providers, all of it work the run does anyway: the code digest of the
 * grading inputs (~10–25 ms), a small run's made-up chart warm-up specs
 * (src/run/finalizer.ts; a large run drops them) and the manifest's check
 * compiled (~2–3 ms, src/run-folder/documents.ts). When the worker is done
 * first, the same work is done as before, only earlier.
 *
 * Not here: the tasks' starting messages and their canonical JSON (the
 * model-independent part of each first request's hash). Made here for the
 * 10k run's tasks they cost ~80 ms (a weakly keyed entry per task) and saved
 * the pre-flight ~20 ms: more than the wait, and more CPU.
 */
export async function createProvidersFillingWait(
  selection: RunSelection,
  options: Parameters<typeof createRunProviders>[1],
): Promise<RunProvider[]> {
  const making = createRunProviders(selection, options);
  // Awaited by the caller; a failure is reported there.
  making.catch(() => {});
  codeDigest();
  prepareEarlyWarmUp();
  // Compiled on its first call (src/spec/shape-check.ts); the answer for `null` is not needed.
  isManifestAsParsed(null);
  return making;
}
