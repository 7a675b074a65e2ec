import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript of the build (scripts/), without declarations
import { writeAjvBundle } from '../../scripts/ajv-bundle.js';
import { linearPatternEngine } from '../../src/registry/schema/linear-pattern.ts';

// The build's one-file ajv (scripts/ajv-bundle.js, used by
// src/registry/schema/ajv-modules.ts only while it holds the installed
// versions) must be the installed code: the versions it records are the
// installed ones, and it accepts and rejects what the packages do, with the
// same errors, for each draft.

const require = createRequire(import.meta.url);
const esbuild = createRequire(require.resolve('tsx/package.json'))('esbuild');
const root = join(import.meta.dirname, '..', '..');

type Ajv = {
  compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown };
};
type AjvClass = new (options: object) => Ajv;

const options = {
  allErrors: true,
  useDefaults: true,
  verbose: true,
  strictTypes: false,
  addUsedSchema: false,
  logger: false,
  code: { regExp: linearPatternEngine },
};

const schema = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email' },
    when: { type: 'string', format: 'date-time' },
    count: { type: 'integer', minimum: 1, default: 3 },
    code: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
    tags: { type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true },
  },
  required: ['email'],
  additionalProperties: false,
};

const inputs: unknown[] = [
  { email: 'a@b.co' },
  { email: 'not an email', when: 'yesterday', count: 0, code: 'abc-1', tags: ['a', 'a', 'c'], extra: 1 },
  { when: '2026-12-02T14:00:00Z', code: 'ABC-12' },
  'text',
];

function verdicts(Ajv: AjvClass, addFormats: (ajv: Ajv) => Ajv) {
  const ajv = new Ajv(options);
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return inputs.map((input) => {
    const data = structuredClone(input);
    const valid = validate(data);
    return { valid, data, errors: validate.errors };
  });
}

describe('the build’s ajv bundle', { timeout: 60_000 }, () => {
  it('records the installed versions and validates as the installed packages do, draft by draft', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolmark-ajv-')), 'ajv.cjs');
    await writeAjvBundle(esbuild, root, file);
    const bundle = require(file);
    const installedVersion = (name: string) =>
      (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
    expect(Object.keys(bundle.versions)).toEqual(
      expect.arrayContaining(['ajv', 'ajv-formats', 'fast-uri', 'fast-deep-equal', 'json-schema-traverse']),
    );
    for (const [name, version] of Object.entries(bundle.versions)) expect(version).toBe(installedVersion(name));

    const addFormats = require('ajv-formats').default;
    const drafts: [string, AjvClass][] = [
      ['ajv/dist/2020', bundle.Ajv2020],
      ['ajv/dist/2019', bundle.Ajv2019],
      ['ajv', bundle.Ajv],
    ];
    for (const [module, Bundled] of drafts) {
      expect(Bundled).not.toBe(require(module).default);
      const expected = verdicts(require(module).default, addFormats);
      expect(expected.map((verdict) => verdict.valid)).toEqual([true, false, false, false]);
      expect(verdicts(Bundled, bundle.addFormats)).toEqual(expected);
    }
    // The licences of what it holds, at its top.
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('/*!')).toBe(true);
    for (const name of Object.keys(bundle.versions)) expect(text.slice(0, text.indexOf('*/'))).toContain(`${name}@`);
  });
});
