/**
 * Regenerate the shipped synthetic cassettes:
 *
 *   npx tsx scripts/make-cassettes.ts [--trials 5] [--domain NAME] [--behaviour NAME]
 *
 * Every domain × surface × task (both splits) × trial is run through the
 * real solve loop with each synthetic behaviour (scripts/synthetic/) and
 * recorded to suites/<domain>/cassettes/synthetic-<behaviour>.jsonl. The
 * output is deterministic: re-running on unchanged tasks and surfaces gives
 * the same bytes. Run it after editing any task or surface (the replay
 * staleness test in test/synthetic/ says when).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProject } from '../src/load/index.ts';
import { BEHAVIOURS } from './synthetic/behaviours.ts';
import { generateCassette, syntheticModel } from './synthetic/generate.ts';

/** Trials per task × surface in the shipped cassettes (matches run.trials in toolmark.config.yaml). */
export const SHIPPED_TRIALS = 5;

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const trials = Number(flag('trials') ?? SHIPPED_TRIALS);
const onlyDomain = flag('domain');
const onlyBehaviour = flag('behaviour');
const project = await loadProject(root, onlyDomain ? { domains: [onlyDomain] } : {});
const started = Date.now();
let total = 0;
for (const domain of project.domains) {
  for (const behaviour of BEHAVIOURS.filter((candidate) => !onlyBehaviour || candidate.name === onlyBehaviour)) {
    const text = await generateCassette({ domain, behaviour, trials });
    const file = path.join(domain.dir, 'cassettes', `${syntheticModel(behaviour)}.jsonl`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    total += text.length;
    const lines = text.split('\n').length - 1;
    process.stdout.write(`${path.relative(root, file)}: ${lines} turns, ${(text.length / 1024).toFixed(0)} KiB\n`);
  }
}
process.stdout.write(
  `total ${(total / 1024 / 1024).toFixed(1)} MiB in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
