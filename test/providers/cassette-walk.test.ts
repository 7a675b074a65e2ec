import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { walkCassette, type LineBytes } from '../../providers/replay/cassette-file.ts';
import { checkCassetteLine } from '../../providers/replay/cassette-line.ts';
import { ConfigError } from '../../src/spec/index.ts';
import { answerLine } from './cassette-lines.ts';

// A cassette held in memory is walked where its bytes are; one read from its
// descriptor in chunks. Both must give the same lines, numbers and places.

const work = mkdtempSync(path.join(tmpdir(), 'toolmark-cassette-walk-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const key = (turn: number) => ({ domain: 'notes', task: 'read-1', surface: 'typed', turn });

type Seen = { lineNumber: number; bytes: LineBytes; text: string; written: boolean };

function walk(from: number | Buffer, file: string): Seen[] {
  const seen: Seen[] = [];
  walkCassette(
    from,
    file,
    (line, lineNumber, bytes, written) =>
      seen.push({ lineNumber, bytes, text: line.response?.text ?? '', written: written !== null }),
    checkCassetteLine,
  );
  return seen;
}

function bothWays(name: string, text: string): { held: Seen[]; read: Seen[]; file: string } {
  const file = path.join(work, name);
  writeFileSync(file, text);
  const fd = openSync(file, 'r');
  try {
    return { held: walk(readFileSync(file), file), read: walk(fd, file), file };
  } finally {
    closeSync(fd);
  }
}

describe('walking a cassette', () => {
  it('gives the same lines, numbers and byte places from memory as from the file', () => {
    // Blank lines skipped, a multi-byte answer (places count bytes), a last line without its newline.
    const text = `${answerLine(key(0), 'first')}\n\n${answerLine(key(1), 'héllo → ✓')}\n${answerLine(key(2), 'last')}`;
    const { held, read, file } = bothWays('mixed.jsonl', text);
    expect(held).toEqual(read);
    expect(held.map((seen) => [seen.lineNumber, seen.text])).toEqual([
      [1, 'first'],
      [3, 'héllo → ✓'],
      [4, 'last'],
    ]);
    const bytes = readFileSync(file);
    for (const { bytes: place, text: answer } of held)
      expect(JSON.parse(bytes.toString('utf8', place.offset, place.offset + place.length)).response.text).toBe(answer);
  });

  it('names the same bad lines from memory as from the file', () => {
    const text = `${answerLine(key(0), 'first')}\nnot json\n${answerLine(key(1), 'second')}\n{"v":1}\n`;
    const file = path.join(work, 'bad.jsonl');
    writeFileSync(file, text);
    const issues = (from: number | Buffer) => {
      try {
        walk(from, file);
      } catch (error) {
        if (error instanceof ConfigError) return error.issues;
        throw error;
      }
      return [];
    };
    const fd = openSync(file, 'r');
    try {
      const held = issues(readFileSync(file));
      expect(new Set(held.map((issue) => issue.line))).toEqual(new Set([2, 4]));
      expect(held).toEqual(issues(fd));
    } finally {
      closeSync(fd);
    }
  });

  it('reads an empty cassette as no lines', () => {
    const { held, read } = bothWays('empty.jsonl', '');
    expect(held).toEqual([]);
    expect(read).toEqual([]);
  });
});
