/**
 * Regenerate the synthetic cassettes of the shipped sweep:
 *
 *   npx tsx scripts/make-sweep-cassettes.ts
 *
 * Builds the ladder of `SHIPPED_SWEEP` with the same library function
 * `toolmark sweep` uses (`buildSweep`), runs every rung × task × trial
 * through the real solve loop with the careful and hasty behaviours
 * (scripts/synthetic/, whose `distractorPull` makes a padded catalog pull
 * calls to distractors; on a deferred rung the behaviour searches with the
 * user's words and chooses only among what BM25 found,
 * scripts/synthetic/searching.ts) and writes
 * suites/tickets/cassettes/sweep/synthetic-<behaviour>.jsonl.
 * Deterministic: the same project gives the same bytes. These are fixtures
 * that describe scripted behaviours, not any real model.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProject } from '../src/load/index.ts';
import { buildSweep } from '../src/run/index.ts';
import { CAREFUL, HASTY } from './synthetic/behaviours.ts';
import { generateCassette, syntheticModel } from './synthetic/generate.ts';

/** The shipped sweep (docs/large-surfaces.md#sweep): flags of `toolmark sweep` and the cassettes' trials. */
export const SHIPPED_SWEEP = {
  domain: 'tickets',
  surface: 'typed-v2',
  sizes: [5, 10, 20, 35],
  from: ['generated', 'domain:billing'] as const,
  seed: 0,
  loading: ['eager', 'deferred'] as const,
  trials: 3,
  behaviours: [CAREFUL, HASTY],
};

/** Where the sweep's cassettes live (outside the folder `npm start` globs, so the main run is unchanged). */
export const sweepCassette = (root: string, behaviour: { name: string }) =>
  path.join(root, 'suites', SHIPPED_SWEEP.domain, 'cassettes', 'sweep', `${syntheticModel(behaviour as never)}.jsonl`);

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const project = await loadProject(root, { domains: [SHIPPED_SWEEP.domain] });
  const { project: swept } = await buildSweep(project, {
    ...SHIPPED_SWEEP,
    from: [...SHIPPED_SWEEP.from],
    loading: [...SHIPPED_SWEEP.loading],
  });
  const domain = swept.domains[0]!;
  for (const behaviour of SHIPPED_SWEEP.behaviours) {
    const text = await generateCassette({ domain, behaviour, trials: SHIPPED_SWEEP.trials });
    const file = sweepCassette(root, behaviour);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    process.stdout.write(
      `${path.relative(root, file)}: ${text.split('\n').length - 1} turns, ${(text.length / 1024).toFixed(0)} KiB\n`,
    );
  }
}
