import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { asWritten, runFile, writeManifest } from '../../src/run-folder/index.ts';
import { Manifest, isManifestAsParsed } from '../../src/spec/index.ts';

// A manifest's task list (one entry per task, 100,000 in a large run) is
// checked by hand, not copied by zod (src/run-folder/documents.ts): what is
// written and read back must be exactly what the schema gives, whatever the
// entries look like.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function manifestWith(tasks: unknown[]): Manifest {
  return {
    v: 1,
    run_id: 'r1',
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    git_commit: null,
    toolmark_version: '0.1.0',
    node_version: 'v20.0.0',
    config: { v: 1 },
    providers: [{ id: 'replay', provider: 'replay', model: 'm', synthetic: true }],
    surfaces: [{ domain: 'd', id: 's', hash: 'sha256:0', schema_tokens: 1, schema_bytes: 2 }],
    tasks,
    trials: 1,
    shard: null,
    planned: tasks.length,
  } as unknown as Manifest;
}

function written(manifest: Manifest): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolmark-manifest-'));
  dirs.push(dir);
  writeManifest(dir, manifest);
  return readFileSync(runFile(dir, 'manifest'), 'utf8');
}

const schemaJson = (manifest: unknown) => `${JSON.stringify(Manifest.parse(manifest), null, 2)}\n`;

describe('a manifest’s task list', () => {
  it('is written and read back as the schema gives it, plain entries or not', () => {
    const lists: unknown[][] = [
      [],
      [
        { domain: 'd', id: 't1', kind: 'must-call', split: 'train' },
        { domain: 'd', id: 't2', kind: 'must-abstain', split: 'heldout' },
      ],
      // An extra key (stripped by the schema) and another key order (the schema's order written).
      [
        { domain: 'd', id: 't1', kind: 'must-call', split: 'train', note: 'x' },
        { id: 't2', domain: 'd', split: 'train', kind: 'must-call' },
      ],
    ];
    for (const tasks of lists) {
      const manifest = manifestWith(tasks);
      expect(written(manifest)).toBe(schemaJson(manifest));
      expect(JSON.stringify(asWritten(Manifest, manifest))).toBe(JSON.stringify(Manifest.parse(manifest)));
    }
  });

  it('is read back as JSON gives it when its plain entries are kept as they are (any text, the rest of the manifest through JSON)', () => {
    const manifest = {
      ...manifestWith([
        { domain: 'd', id: 'lone \uD800 surrogate, \u2028, é, 😀', kind: 'must-call', split: 'train' },
        { domain: 'd', id: 't2', kind: 'must-abstain', split: 'heldout' },
      ]),
      finished_at: new Date('2026-01-01T00:00:01.000Z') as unknown as string,
    } as Manifest;
    const read = asWritten(Manifest, manifest);
    expect(read).toEqual(Manifest.parse(JSON.parse(JSON.stringify(manifest))));
    expect(read.finished_at).toBe('2026-01-01T00:00:01.000Z');
  });

  it('is written as built when it is what the schema gives, and in the schema’s key order when it is not', () => {
    const tasks = [{ domain: 'd', id: 't1', kind: 'must-call', split: 'train' }];
    // As a run builds it: every default there (here: filled by the schema).
    const built = Manifest.parse(manifestWith(tasks));
    expect(isManifestAsParsed(built)).toBe(true);
    expect(written(built)).toBe(schemaJson(built));
    // The same manifest, its keys in another order (top level, config, a provider entry): the schema's order is written.
    const { v, run_id, config, providers, ...rest } = built;
    const reordered = {
      run_id,
      v,
      config: { extra: true, ...config },
      providers: providers.map(({ model, ...entry }) => ({ model, ...entry })),
      ...rest,
    } as unknown as Manifest;
    expect(isManifestAsParsed(reordered)).toBe(false);
    expect(written(reordered)).toBe(schemaJson(reordered));
    expect(JSON.stringify(asWritten(Manifest, reordered))).toBe(JSON.stringify(Manifest.parse(reordered)));
    // A default to fill (a provider without `synthetic`): filled as the schema fills it.
    const older = { ...built, providers: [{ id: 'replay', provider: 'replay', model: 'm' }] } as unknown as Manifest;
    expect(written(older)).toBe(schemaJson(older));
    expect(written(older)).toContain('"synthetic": false');
  });

  it('is refused as the schema refuses it', () => {
    const manifest = manifestWith([{ domain: 'd', id: 7, kind: 'must-call', split: 'train' }]);
    expect(() => written(manifest)).toThrow();
    expect(() => asWritten(Manifest, manifest)).toThrow();
  });
});
