import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFast } from '../../src/load/fast-yaml.ts';
import { CACHE_MIN_LENGTH, cachedParseFast } from '../../src/load/parse-cache.ts';
import { parsePlain } from '../../src/load/plain-yaml.ts';

// The parse cache (src/load/parse-cache.ts) must give exactly what parseFast
// gives, read an entry only when it was made from the same text, and never
// read one from a folder others can write.

const scratch = mkdtempSync(join(os.tmpdir(), 'toolmark-parse-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A task file longer than the cache threshold, its tasks numbered from
 * `first`, with a block scalar (a description) the plain reader leaves to
 * js-yaml, whose parses are the ones stored.
 */
function largeTaskFile(first: number, plain = false): string {
  const lines = ['v: 1', 'tasks:'];
  for (let index = first; lines.join('\n').length < CACHE_MIN_LENGTH + 1000; index += 1) {
    lines.push(
      `  - id: task-${index}`,
      ...(plain ? [] : ['    description: |', '      Weather, asked in a block scalar.']),
      '    kind: must-call',
      `    messages: [{ role: user, content: "Weather in Town ${index}?" }]`,
      `    expect: { action: desk.get_weather, args: { city: "Town ${index}", ratio: ${index}.5, ok: true, none: null } }`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function freshFolder(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe('parse cache', () => {
  it('stores a large file and gives back the same value and item offsets as the parse', () => {
    const dir = freshFolder('same');
    const text = largeTaskFile(0);
    const expected = parseFast(text)!;
    const missed = cachedParseFast('/suite/tasks/a.yaml', text, dir)!;
    expect(readdirSync(dir)).toHaveLength(1);
    const hit = cachedParseFast('/suite/tasks/a.yaml', text, dir)!;
    for (const parsed of [missed, hit]) {
      expect(parsed.value).toEqual(expected.value);
      expect(parsed.itemOffsets).toEqual(expected.itemOffsets);
    }
    // Offsets of the first items, counted by hand: "v: 1\ntasks:\n  - " puts item 0 at 16.
    expect(hit.itemOffsets.get('tasks')![0]).toBe(16);
  });

  it('reads the entry on a hit (a doctored entry with the right key is believed)', () => {
    const dir = freshFolder('doctored');
    const text = largeTaskFile(0);
    cachedParseFast('/suite/tasks/a.yaml', text, dir);
    const [name] = readdirSync(dir);
    const entry = deserialize(readFileSync(join(dir, name!))) as { key: string; value: unknown; offsets: unknown };
    writeFileSync(join(dir, name!), serialize({ ...entry, value: { doctored: true } }));
    expect(cachedParseFast('/suite/tasks/a.yaml', text, dir)!.value).toEqual({ doctored: true });
  });

  it('parses an edited file again and replaces its entry', () => {
    const dir = freshFolder('edited');
    cachedParseFast('/suite/tasks/a.yaml', largeTaskFile(0), dir);
    const edited = largeTaskFile(7);
    const parsed = cachedParseFast('/suite/tasks/a.yaml', edited, dir)!;
    expect((parsed.value as { tasks: { id: string }[] }).tasks[0]!.id).toBe('task-7');
    expect(readdirSync(dir)).toHaveLength(1);
    expect(cachedParseFast('/suite/tasks/a.yaml', edited, dir)!.value).toEqual(parseFast(edited)!.value);
  });

  it('treats an unreadable entry as a miss', () => {
    const dir = freshFolder('torn');
    const text = largeTaskFile(0);
    cachedParseFast('/suite/tasks/a.yaml', text, dir);
    const [name] = readdirSync(dir);
    writeFileSync(join(dir, name!), Buffer.from([0xff, 0x0d, 0x01]));
    expect(cachedParseFast('/suite/tasks/a.yaml', text, dir)!.value).toEqual(parseFast(text)!.value);
  });

  it('never stores small files, nor files js-yaml leaves to `yaml`', () => {
    const dir = freshFolder('small');
    expect(cachedParseFast('/suite/small.yaml', 'a: 1\n', dir)!.value).toEqual({ a: 1 });
    const duplicateKey = `${largeTaskFile(0)}v: 2\n`;
    expect(cachedParseFast('/suite/dup.yaml', duplicateKey, dir)).toBeNull();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never stores a file the plain reader reads, and gives its parse', () => {
    const dir = freshFolder('plain');
    const text = largeTaskFile(0, true);
    expect(parsePlain(text)).not.toBeNull();
    const parsed = cachedParseFast('/suite/tasks/a.yaml', text, dir)!;
    expect(parsed.value).toEqual(parseFast(text)!.value);
    expect(parsed.itemOffsets).toEqual(parseFast(text)!.itemOffsets);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.skipIf(process.getuid === undefined)('does not use a folder others can write', () => {
    const dir = freshFolder('shared');
    chmodSync(dir, 0o777);
    const text = largeTaskFile(0);
    expect(cachedParseFast('/suite/tasks/a.yaml', text, dir)!.value).toEqual(parseFast(text)!.value);
    expect(readdirSync(dir)).toEqual([]);
  });
});
