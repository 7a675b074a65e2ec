import { existsSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { packageRoot } from '../load/package-root.ts';
import { ConfigError } from '../spec/index.ts';

const EXAMPLE = ['toolmark.config.yaml', 'suites/tickets', 'suites/billing', 'heldout/tickets', 'heldout/billing'];

/**
 * `toolmark init --example`: the shipped example (tickets and billing:
 * domains, surfaces, train and held-out tasks, contract cases, config) into
 * a folder, and its synthetic cassettes generated there (they are not in
 * the package: ~9 MB, deterministic, made by the same generator as the
 * repository's, scripts/synthetic/).
 */
export async function writeExample(
  dir: string,
  options: { force?: boolean } = {},
): Promise<{ dir: string; files: string[]; cassettes: string[] }> {
  const target = resolve(dir);
  const root = packageRoot();
  const clashes = EXAMPLE.filter((entry) => existsSync(join(target, entry)));
  if (clashes.length > 0 && !options.force) {
    throw new ConfigError(
      clashes.map((entry) => ({
        file: relative(process.cwd(), join(target, entry)) || entry,
        message: 'already exists; toolmark init does not overwrite files',
        expected: 'an empty folder, or --force',
      })),
    );
  }
  for (const entry of EXAMPLE) {
    await cp(join(root, entry), join(target, entry), {
      recursive: true,
      filter: (source) => !/(^|[\\/])cassettes([\\/]|$)/.test(relative(root, source)),
    });
  }
  // Domain files are ES modules whatever the project's own package.json says.
  await writeFile(join(target, 'suites', 'package.json'), `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
  const { loadProject } = await import('../load/index.ts');
  const { BEHAVIOURS } = await import('../../scripts/synthetic/behaviours.ts');
  const { generateCassette, syntheticModel } = await import('../../scripts/synthetic/generate.ts');
  const project = await loadProject(target);
  const cassettes: string[] = [];
  for (const domain of project.domains) {
    for (const behaviour of BEHAVIOURS) {
      const file = join(domain.dir, 'cassettes', `${syntheticModel(behaviour)}.jsonl`);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, await generateCassette({ domain, behaviour, trials: 5 }));
      cassettes.push(relative(target, file));
    }
  }
  return { dir: target, files: [...EXAMPLE, 'suites/package.json'], cassettes };
}
