import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// SPEC §9: the data flows one way, load → solve → score → aggregate →
// report, with the registry and the providers on either side of solve and
// src/run orchestrating it for the CLI. Every import of every source file is
// read (static, re-export, dynamic and `typeof import(…)`, via TypeScript's
// own pre-processor) and checked against this table: a folder may import
// only the folders listed for it. A new folder must be given a row.
const MAY_IMPORT: Record<string, readonly string[]> = {
  spec: [],
  stats: [],
  registry: ['spec'],
  // Domain kinds (declarative YAML, MCP) built on the registry.
  domains: ['spec', 'registry', 'score'],
  // stats: the seeded generator behind `perturb:` shuffles and distractor draws (stats imports nothing).
  load: ['spec', 'registry', 'domains', 'stats'],
  cost: ['spec'],
  'run-folder': ['spec'],
  solve: ['spec', 'registry', 'cost', 'run-folder'],
  score: ['spec'],
  aggregate: ['spec', 'score', 'stats', 'run-folder'],
  report: ['spec', 'stats', 'score', 'run-folder'], // score: pure classifiers (task outcomes) shared with the graders
  // The deterministic contract cases: the registry driven without a model.
  contract: ['spec', 'registry', 'load', 'cost'],
  providers: ['spec'],
  // Orchestration as a library: everything below the CLI.
  run: [
    'spec',
    'stats',
    'registry',
    'domains',
    'load',
    'cost',
    'run-folder',
    'solve',
    'score',
    'aggregate',
    'report',
    'contract',
    'providers',
  ],
  // `toolmark init`: scaffolds a project from a tools file (load's reader) or writes the example.
  init: ['spec', 'registry', 'load'],
  cli: [
    'spec',
    'stats',
    'registry',
    'domains',
    'load',
    'cost',
    'run-folder',
    'solve',
    'score',
    'aggregate',
    'report',
    'contract',
    'providers',
    'run',
    'init',
  ],
  // Shipped domains: what a user's domain may use (the package's API, imported as 'toolmark' = src/index.ts: spec and registry).
  suites: ['spec', 'registry'],
};

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The layer a repository file belongs to: `src/<folder>/…` → folder; `providers/…`, `suites/…` → that name. */
function layerOf(file: string): string | null {
  const [top, second] = path.relative(ROOT, file).split(path.sep);
  if (top === 'src') return second!.endsWith('.ts') ? null : second!;
  return top === 'providers' || top === 'suites' ? top! : null;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Every relative import of a file, resolved to a path. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((entry) => entry.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.resolve(path.dirname(file), name));
}

const files = ['src', 'providers', 'suites'].flatMap((dir) => sourceFiles(path.join(ROOT, dir)));

describe('layering (SPEC §9)', () => {
  it('knows every folder', () => {
    const layers = new Set(files.map(layerOf).filter((layer): layer is string => layer !== null));
    expect([...layers].filter((layer) => !(layer in MAY_IMPORT))).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });

  it('no folder imports against the data flow', () => {
    const violations: string[] = [];
    let checked = 0;
    for (const file of files) {
      const from = layerOf(file);
      if (from === null) continue;
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        checked += 1;
        if (to === null || to === from) continue;
        if (!MAY_IMPORT[from]!.includes(to))
          violations.push(`${path.relative(ROOT, file)} (${from}) imports ${path.relative(ROOT, target)} (${to})`);
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect(violations).toEqual([]);
  });

  it('nothing but the CLI imports src/run, and nothing imports the CLI', () => {
    const importers = (layer: string) =>
      files
        .filter((file) => importsOf(file).some((target) => layerOf(target) === layer && layerOf(file) !== layer))
        .map((file) => layerOf(file));
    expect(new Set(importers('run'))).toEqual(new Set(['cli']));
    expect(importers('cli')).toEqual([]);
  });

  it('the table itself flows one way (no two folders may import each other)', () => {
    for (const [layer, allowed] of Object.entries(MAY_IMPORT)) {
      for (const other of allowed) expect(MAY_IMPORT[other] ?? [], `${layer} ↔ ${other}`).not.toContain(layer);
    }
  });
});
