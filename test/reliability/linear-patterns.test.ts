/**
 * Issue 17 item 10 (c) — JSON Schema `pattern` and `patternProperties` in a
 * domain's tool schemas run on a linear-time engine (RE2JS through ajv's
 * `code.regExp`), so a model's crafted argument cannot hang validation; a
 * pattern that engine cannot run is refused at load with file:line, the
 * reason and what to do. (A zod `.regex()` in a domain.ts runs JavaScript's
 * engine: blocked-user-code.test.ts covers it with the run's time limit.)
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/load/index.ts';
import { createDomainRegistry, fromJsonSchema } from '../../src/registry/index.ts';
import { ConfigError, formatConfigIssue } from '../../src/spec/index.ts';
import { FIXTURES, REPO_ROOT } from '../load/materialize.ts';

const scratch: string[] = [];
afterAll(async () => Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true }))));

/** The YAML desk project with desk.list_bookings' `date` property given `property` (YAML flow text). */
async function deskWithDate(property: string): Promise<string> {
  const root = await mkdtemp(join(REPO_ROOT, 'node_modules/.cache/toolmark-patterns-'));
  scratch.push(root);
  await cp(join(FIXTURES, 'yaml-project'), root, { recursive: true });
  const file = join(root, 'suites/desk/domain.yaml');
  const text = await readFile(file, 'utf8');
  const original = 'properties: { date: { type: string, format: date } }';
  expect(text).toContain(original);
  await writeFile(file, text.replace(original, `properties: { date: ${property} }`));
  return root;
}

// With a backtracking engine, ^(a+)+$ against n a's and a mismatch takes ~2^n steps: 2^40 is
// hours. These finish in milliseconds; the test's own time limit turns a hang into a failure.
const CRAFTED = `${'a'.repeat(40_000)}!`;

describe('JSON Schema patterns in tool schemas run on a linear-time engine', () => {
  it('pattern and patternProperties: ^(a+)+$ against 40,000 a and ! is rejected at once, a good value passes', () => {
    const schema = fromJsonSchema({
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' } },
      patternProperties: { '^(x+)+$': { type: 'number' } },
    });
    const key = `${'x'.repeat(40_000)}`;
    expect(schema.validate({ code: CRAFTED, [key]: 'not a number' })).toEqual({
      ok: false,
      violations: [
        { path: '/code', message: 'must match pattern "^(a+)+$"' },
        { path: `/${key}`, message: 'must be number', expected: 'number' },
      ],
    });
    expect(schema.validate({ code: 'aaaa', xx: 3 })).toEqual({ ok: true, value: { code: 'aaaa', xx: 3 } });
    // Two patterns are two validators (ajv caches compiled patterns by their text).
    const two = fromJsonSchema({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } },
    });
    expect(two.validate({ a: 'a', b: 'b' }).ok).toBe(true);
    expect(two.validate({ a: 'b', b: 'a' }).ok).toBe(false);
  }, 20_000);

  it("a domain.yaml action's pattern, through the registry, against a crafted argument", async () => {
    const root = await deskWithDate('{ type: string, pattern: "^(a+)+$" }');
    const project = await loadProject(root);
    const registry = createDomainRegistry(project.domains[0]!.domain);
    const tool = registry.names().find((name) => name.includes('list_bookings'))!;
    expect(registry.checkInput(tool, { date: CRAFTED })).toEqual({
      ok: false,
      violations: [{ path: '/date', message: 'must match pattern "^(a+)+$"' }],
    });
    expect(registry.checkInput(tool, { date: 'aaa' })).toEqual({ ok: true });
  }, 60_000);

  it.each([
    ['a backreference', '(a)\\\\1', 'invalid escape sequence: `\\1`'],
    ['a lookahead', '^(?!x)', 'invalid or unsupported Perl syntax: `(?!`'],
  ])(
    '%s is refused at load with file:line, why and what to do',
    async (_, pattern, reason) => {
      const root = await deskWithDate(`{ type: string, pattern: "${pattern}" }`);
      const error = await loadProject(root).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ConfigError);
      const lines = (error as ConfigError).issues.map(formatConfigIssue);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^suites\/desk\/domain\.yaml:28:\d+: actions\[2\]\.input: invalid JSON Schema \(2020-12\): /,
      );
      expect(lines[0]).toContain(reason);
      expect(lines[0]).toContain(
        'backreferences and lookaround are not supported: patterns run on a linear-time engine so a crafted argument cannot hang toolmark; rewrite the pattern without them',
      );
    },
    60_000,
  );
});
