import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as installed from 'commander';
// @ts-expect-error plain JavaScript of the build (scripts/), without declarations
import { COMMANDER_BUNDLE_IN_DIST, commanderFromBundle, writeCommanderBundle } from '../../scripts/commander-bundle.js';

// The build's one-file commander (scripts/commander-bundle.js, what the
// compiled CLI imports) must be the installed code under its licence, and the
// CLI entry must import it by a path that resolves from where it is built.

const require = createRequire(import.meta.url);
const esbuild = createRequire(require.resolve('tsx/package.json'))('esbuild');
const root = join(import.meta.dirname, '..', '..');

type CommanderModule = typeof installed;

/** The help text and the parse error a program of this commander gives. */
function behaviour({ Command, CommanderError }: CommanderModule) {
  const program = new Command('tool')
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .description('a tool');
  program.command('run').description('run it').option('--trials <n>', 'how many');
  let error: unknown;
  try {
    program.parse(['run', '--bogus'], { from: 'user' });
  } catch (caught) {
    error = caught;
  }
  return {
    help: program.helpInformation(),
    error: error instanceof CommanderError ? [error.code, error.exitCode, error.message] : error,
  };
}

describe('the commander bundle', () => {
  it('behaves as the installed package and carries its version and licence', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolmark-commander-')), 'commander.js');
    await writeCommanderBundle(esbuild, root, file);
    const bundled = (await import(pathToFileURL(file).href)) as CommanderModule;
    expect(behaviour(bundled)).toEqual(behaviour(installed));
    const text = readFileSync(file, 'utf8');
    const { version } = JSON.parse(readFileSync(join(root, 'node_modules/commander/package.json'), 'utf8'));
    expect(text.startsWith(`/*!\ncommander@${version}:`)).toBe(true);
    expect(text).toContain('Permission is hereby granted');
  });

  it('is imported from the CLI entry by its path under dist/', async () => {
    const dist = join(root, 'dist');
    let resolved: { path: string; external: boolean } | undefined;
    commanderFromBundle(dist).setup({
      onResolve: (_filter: unknown, callback: (args: { importer: string }) => typeof resolved) => {
        resolved = callback({ importer: join(dist, 'src/cli/main.js') });
      },
    });
    expect(resolved).toEqual({ path: '../vendor/commander.js', external: true });
    expect(join(dist, 'src/cli', resolved!.path)).toBe(join(dist, COMMANDER_BUNDLE_IN_DIST));
  });
});
