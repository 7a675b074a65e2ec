import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileBytes } from '../../src/load/file-bytes.ts';
import { digestFiles } from '../../src/load/input-digest.ts';

// Suite files are read into one reused buffer (src/load/file-bytes.ts): each
// read must give exactly the file's bytes, whatever was read before it, and
// fail as readFileSync fails.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folderWith(files: Record<string, Buffer>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolmark-file-bytes-'));
  dirs.push(dir);
  for (const [name, bytes] of Object.entries(files)) writeFileSync(path.join(dir, name), bytes);
  return dir;
}

const filled = (size: number, seed: number) =>
  Buffer.from(Array.from({ length: size }, (_, index) => (index * 31 + seed) % 251));

describe('withFileBytes', () => {
  it('gives each file its own bytes, from empty to larger than the kept buffer, in any order', () => {
    const files = {
      'empty.yaml': Buffer.alloc(0),
      'small.yaml': filled(100, 1),
      'exact.yaml': filled(64 * 1024, 2),
      'grown.yaml': filled(200 * 1024 + 7, 3),
      'large.yaml': filled(1024 * 1024 + 3, 4),
    };
    const dir = folderWith(files);
    const order = ['grown.yaml', 'small.yaml', 'large.yaml', 'empty.yaml', 'exact.yaml', 'grown.yaml', 'small.yaml'];
    for (const name of order) {
      const copy = withFileBytes(path.join(dir, name), (bytes) => Buffer.from(bytes));
      expect(copy.equals(files[name as keyof typeof files]), name).toBe(true);
    }
  });

  it('fails as readFileSync fails: a missing file, a folder', () => {
    const dir = folderWith({});
    const code = (read: () => unknown) => {
      try {
        read();
      } catch (error) {
        return (error as NodeJS.ErrnoException).code;
      }
      return 'no error';
    };
    for (const target of [path.join(dir, 'missing.yaml'), dir])
      expect(code(() => withFileBytes(target, (bytes) => bytes.length))).toBe(code(() => readFileSync(target)));
  });

  it('keeps a domain digest what it was: the paths, lengths and bytes of each file', () => {
    const dir = folderWith({ 'a.yaml': filled(300 * 1024, 5), 'b.yaml': filled(10, 6) });
    const expected = createHash('sha256');
    for (const name of ['a.yaml', 'b.yaml']) {
      const bytes = readFileSync(path.join(dir, name));
      expected.update(`${name}\0${bytes.length}\0`).update(bytes);
    }
    expect(digestFiles(dir, ['a.yaml', 'b.yaml'])).toBe(`sha256:${expected.digest('hex')}`);
    expect(digestFiles(dir, ['a.yaml', 'missing.yaml'])).toBeNull();
  });
});
