import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as installed from 'commander';
// @ts-expect-error plain JavaScript of the build (scripts/), without declarations
import * as bundle from '../../scripts/commander-bundle.js';
const { COMMANDER_BUNDLE_IN_DIST, COMMANDER_IMPORT, commanderFromBundle, writeCommanderBundle } = bundle;

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

  it('is imported by its name in package.json imports, which maps it to its file under dist/', async () => {
    let resolved: { path: string; external: boolean } | undefined;
    commanderFromBundle().setup({
      onResolve: (filter: { filter: RegExp }, callback: () => typeof resolved) => {
        expect(filter.filter.test('commander')).toBe(true);
        expect(filter.filter.test('commander/esm.mjs')).toBe(false);
        resolved = callback();
      },
    });
    expect(resolved).toEqual({ path: COMMANDER_IMPORT, external: true });
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      imports: Record<string, string>;
    };
    expect(manifest.imports[COMMANDER_IMPORT]).toBe(`./dist/${COMMANDER_BUNDLE_IN_DIST}`);
    // The package's "files" ship dist/src/, so an installed toolmark has the file it maps to.
    expect(COMMANDER_BUNDLE_IN_DIST.startsWith('src/')).toBe(true);
  });
});
