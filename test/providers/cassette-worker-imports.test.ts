import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The cassette worker must start without zod and the spec's schemas (~130 ms
// of its start, which a run's pre-flight waited for): it checks lines with
// the structural check sent to it as source (providers/replay/cassette-prefetch.ts)
// and imports the schema lazily, only for a line that check does not take.
// Every module it loads before then is read here: the imports that stay in
// the JavaScript (not `import type`, not a lazy `import()`), followed through
// our own files.

const ROOT = path.resolve(import.meta.dirname, '../..');
const WORKER = path.join(ROOT, 'providers/replay/cassette-worker.ts');

/** The modules a file loads when it is evaluated: its value imports and re-exports. */
function eagerImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            bindings !== undefined &&
            ts.isNamedImports(bindings) &&
            bindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) names.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly)
      names.push((statement.moduleSpecifier as ts.StringLiteral).text);
  }
  return names;
}

/** Every module the worker loads at its start: our files by path, packages and node: modules by name. */
function workerModules(): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const name of eagerImportsOf(file))
      if (name.startsWith('.')) visit(path.resolve(path.dirname(file), name));
      else seen.add(name);
  };
  visit(WORKER);
  return seen;
}

describe('the cassette worker’s imports', () => {
  it('load neither zod nor the spec’s index, only the reader, the index and the generated check', () => {
    const modules = [...workerModules()].map((module) =>
      path.isAbsolute(module) ? path.relative(ROOT, module) : module,
    );
    expect(modules.filter((module) => module === 'zod' || module.startsWith('zod/'))).toEqual([]);
    expect(new Set(modules.filter((module) => module.startsWith('src/')))).toEqual(
      new Set([
        'src/spec/errors.ts',
        'src/spec/shape-check.ts',
        'src/spec/jsonl-lines.ts',
        'src/spec/cassette-outcome.ts',
      ]),
    );
    expect(modules).toEqual(
      expect.arrayContaining([
        'providers/replay/read-cassettes.ts',
        'providers/replay/cassette-index.ts',
        'providers/replay/cassette-source.ts',
        'providers/replay/turn-keys.ts',
      ]),
    );
  });
});
