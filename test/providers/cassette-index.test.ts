import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createReplayProviders } from '../../providers/replay/index.ts';
import { TurnIndex, responseSpan } from '../../providers/replay/cassette-index.ts';
import { buildRequest, initialMessages } from '../../src/solve/index.ts';
import { ProviderError, requestHash, requestPartHashes } from '../../src/spec/index.ts';
import type { CassetteLine } from '../../src/spec/index.ts';
import { makeTask, typedSurface } from '../solve/fixtures/notes-domain.ts';
import { answerLine } from './cassette-lines.ts';

// Replay keeps an index of a cassette (where each line is, its request hash),
// not its parsed lines: a line is read again from the file when a trial uses it.

const work = mkdtempSync(path.join(tmpdir(), 'toolmark-cassette-index-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const task = makeTask({
  id: 'read-1',
  kind: 'must-call',
  messages: [{ role: 'user', content: 'Read N-1' }],
  actor: { permissions: ['note:read'] },
  expect: { action: 'note.get' },
});
const request = () => buildRequest({ model: 'careful', surface: typedSurface, messages: initialMessages(task) });
const key = (turn: number) => ({ domain: 'notes', task: 'read-1', surface: 'typed', trial: 0, turn });

const turnLine = (turn: number, text: string, extra: Partial<CassetteLine> = {}) =>
  answerLine({ ...key(turn), trial: '*' }, text, extra);

function cassette(name: string, lines: string[]): string {
  const file = path.join(work, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('cassette index', () => {
  it('reads a line from the file when it is used: an edit after opening is what replay answers', async () => {
    const file = cassette('edit.jsonl', [turnLine(0, 'first answer'), turnLine(1, 'second answer')]);
    // Larger than what is held in memory: read back from the file.
    const [provider] = createReplayProviders([file], { root: work, holdUpTo: 100 });
    // Same length, so the index still points at whole lines.
    writeFileSync(file, readFileSync(file, 'utf8').replace('second answer', 'SECOND ANSWER'));
    expect((await provider!.propose(request(), { key: key(0) })).text).toBe('first answer');
    expect((await provider!.propose(request(), { key: key(1) })).text).toBe('SECOND ANSWER');
    // Each use parses the line again: a caller changing one answer cannot change the next.
    const answer = await provider!.propose(request(), { key: key(0) });
    answer.text = 'changed by the caller';
    expect((await provider!.propose(request(), { key: key(0) })).text).toBe('first answer');
  });

  it('a line cut after opening is a ProviderError naming file:line, not a crash', async () => {
    const file = cassette('cut.jsonl', [turnLine(0, 'first'), turnLine(1, 'second')]);
    const [provider] = createReplayProviders([file], { root: work, holdUpTo: 100 });
    truncateSync(file, turnLine(0, 'first').length + 10);
    await expect(provider!.propose(request(), { key: key(0) })).resolves.toMatchObject({ text: 'first' });
    const error = await provider!.propose(request(), { key: key(1) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe(
      `${file}:2: the cassette changed while the run read it; run again once it is written`,
    );
  });

  it('checks request hashes from the index: sha256 and hand-written texts, stale named with file:line, later lines win', () => {
    const recorded = request();
    const hash = requestHash(recorded);
    const file = cassette('hashes.jsonl', [
      turnLine(0, 'old', { request_hash: 'sha256:' + '0'.repeat(64) }),
      '',
      turnLine(0, 'new', { request_hash: hash, ...requestPartHashes(recorded) }),
      turnLine(1, 'hand', { request_hash: 'my own label' }),
      turnLine(2, 'stale', { request_hash: 'sha256:' + 'f'.repeat(64), ...requestPartHashes(recorded) }),
    ]);
    const [provider] = createReplayProviders([file], { root: work });
    expect(provider!.check(recorded, key(0))).toBeNull();
    expect(provider!.check(recorded, key(1))).toMatchObject({ kind: 'stale' });
    const stale = provider!.check(recorded, key(2));
    expect(stale?.kind).toBe('stale');
    // Both part hashes match, so the message can only say the request changed; the place is the line's.
    expect(stale?.message).toContain(`the request for \`read-1\` changed`);
    expect(stale?.message).toContain(`${file}:5`);
    expect(provider!.check(recorded, key(3))).toMatchObject({ kind: 'missing' });
  });

  it('a key recorded again takes the later line whole: its hash (of either kind), its place, its answer', async () => {
    const recorded = request();
    const hash = requestHash(recorded);
    const file = cassette('again.jsonl', [
      turnLine(0, 'hand', { request_hash: 'my own label' }),
      turnLine(1, 'checked', { request_hash: hash }),
      turnLine(0, 'recorded', { request_hash: hash }),
      turnLine(1, 'unchecked'),
      turnLine(2, 'upper case', { request_hash: hash.toUpperCase().replace('SHA256', 'sha256') }),
    ]);
    const [provider] = createReplayProviders([file], { root: work });
    expect(provider!.check(recorded, key(0))).toBeNull();
    expect((await provider!.propose(recorded, { key: key(0) })).text).toBe('recorded');
    expect(provider!.check(request(), key(1))).toBeNull();
    expect((await provider!.propose(request(), { key: key(1) })).text).toBe('unchecked');
    // Not the lowercase hex requestHash makes: kept as its text, so stale, and named by its own line.
    expect(provider!.check(recorded, key(2))?.message).toContain(`${file}:5`);
  });

  it('compares a request hash with the recorded one digit by digit, from the first to the last', () => {
    const index = new TurnIndex();
    const recorded = `sha256:${'0123456789abcdef'.repeat(4)}`;
    index.addHeld({ line: JSON.parse(turnLine(0, 'a', { request_hash: recorded })), file: 'h.jsonl', lineNumber: 1 });
    index.addHeld({
      line: JSON.parse(turnLine(1, 'b', { request_hash: 'my own label' })),
      file: 'h.jsonl',
      lineNumber: 2,
    });
    index.addHeld({ line: JSON.parse(turnLine(2, 'c')), file: 'h.jsonl', lineNumber: 3 });
    const [hashed, labelled, bare] = [0, 1, 2].map((turn) => index.find(key(turn))!);
    expect(index.isRequestHash(hashed!, recorded)).toBe(true);
    for (const at of [7, 8, 40, recorded.length - 1]) {
      const other = recorded.slice(0, at) + (recorded[at] === 'f' ? 'e' : 'f') + recorded.slice(at + 1);
      expect(index.isRequestHash(hashed!, other)).toBe(false);
    }
    expect(index.isRequestHash(hashed!, recorded.toUpperCase().replace('SHA256', 'sha256'))).toBe(false);
    expect(index.isRequestHash(hashed!, recorded.slice(0, -1))).toBe(false);
    expect(index.isRequestHash(hashed!, `${recorded}0`)).toBe(false);
    expect(index.isRequestHash(labelled!, 'my own label')).toBe(true);
    expect(index.isRequestHash(labelled!, recorded)).toBe(false);
    expect([index.hasRequestHash(hashed!), index.hasRequestHash(labelled!), index.hasRequestHash(bare!)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('indexes a file larger than one read chunk, and a last line without a newline; held or read back alike', async () => {
    const lines = Array.from({ length: 3000 }, (_, turn) => turnLine(turn, `answer ${turn} ${'x'.repeat(500)}`));
    const file = path.join(work, 'large.jsonl');
    writeFileSync(file, lines.join('\n'));
    for (const holdUpTo of [0, 1 << 30]) {
      const [provider] = createReplayProviders([file], { root: work, holdUpTo });
      for (const turn of [0, 1234, 2047, 2999])
        expect((await provider!.propose(request(), { key: key(turn) })).text).toBe(`answer ${turn} ${'x'.repeat(500)}`);
    }
  });

  it('reads only a turn’s response where it can find it, else the whole line: the same turn either way', async () => {
    const plain = turnLine(0, 'plain');
    const duplicate = turnLine(5, 'the last one');
    const byResponse = JSON.parse(turnLine(6, 'response first')) as CassetteLine;
    const lines = {
      plain,
      'not ASCII': turnLine(1, 'café ☕ 😀'),
      'a key in a string': turnLine(2, 'say "response":{"text":"fake"} \\ and \\"response\\":'),
      'spaced out': turnLine(3, 'spaced').replace('"response":', '"response": '),
      'the key spaced out': turnLine(10, 'spaced').replace('"response":', '"response" :'),
      'escaped otherwise': turnLine(4, 'é').replace('é', '\\u00e9'),
      // JSON.parse keeps the last of two keys; so does replay.
      'a key twice': duplicate.replace(
        '{"v":1,',
        `{"v":1,"response":${JSON.stringify({ ...byResponse.response, text: 'not me' })},`,
      ),
      'response first': JSON.stringify({ response: byResponse.response, ...byResponse }),
      labelled: turnLine(7, 'labelled', { label: 'synthetic: "careful"' }),
      'a later key spaced out': turnLine(8, 'spaced', { label: 'l' }).replace('"label":', '"label": '),
      // The keys after the response end the line as they would be written, but the label is there twice.
      'a later key twice': turnLine(9, 'twice', { label: 'b' }).replace('"label":"b"}', '"label":"a","label":"b"}'),
    };
    // Where each response is read from: alone, whole (no place kept), or whole after its place did not parse.
    const readFrom = Object.fromEntries(
      Object.entries(lines).map(([name, text]) => {
        const line = JSON.parse(text) as CassetteLine;
        const span = responseSpan(line, text, Buffer.byteLength(text));
        if (span === null) return [name, 'whole'];
        const alone = Buffer.from(text)
          .subarray(span.at, Buffer.byteLength(text) - span.tail)
          .toString();
        let parsed: unknown;
        try {
          parsed = JSON.parse(alone);
        } catch {
          return [name, 'whole after trying'];
        }
        expect(parsed).toEqual(line.response);
        return [name, 'alone'];
      }),
    );
    expect(readFrom).toEqual({
      plain: 'alone',
      'not ASCII': 'alone',
      'a key in a string': 'alone',
      'spaced out': 'alone',
      'the key spaced out': 'whole',
      'escaped otherwise': 'alone',
      'a key twice': 'whole',
      'response first': 'alone',
      labelled: 'alone',
      'a later key spaced out': 'whole',
      'a later key twice': 'whole after trying',
    });
    const file = cassette('response-alone.jsonl', Object.values(lines));
    for (const holdUpTo of [0, 1 << 30]) {
      const [provider] = createReplayProviders([file], { root: work, holdUpTo });
      for (const text of Object.values(lines)) {
        const line = JSON.parse(text) as CassetteLine;
        expect(await provider!.propose(request(), { key: key(line.key.turn) })).toEqual(line.response);
      }
    }
    expect(responseSpan(JSON.parse(plain) as CassetteLine, plain, plain.length + 1)).toBeNull();
    // An index reuses the text after the last line's response for lines that end alike: the same places.
    const memo = { last: null };
    const labelled = [
      ...Object.values(lines),
      turnLine(11, 'same label', { label: 'synthetic: "careful"' }),
      turnLine(12, 'same label, spaced', { label: 'synthetic: "careful"' }).replace('"label":', '"label": '),
      turnLine(13, 'a label that is an object', { label: { a: 1 } as unknown as string }),
      turnLine(14, 'the same object', { label: { a: 1 } as unknown as string }),
      turnLine(15, 'no label'),
    ];
    for (const text of [...labelled, ...labelled.reverse()]) {
      const line = JSON.parse(text) as CassetteLine;
      const length = Buffer.byteLength(text);
      expect(responseSpan(line, text, length, memo)).toEqual(responseSpan(line, text, length));
    }
  });

  it('a response broken after opening is reported for its whole line, as before', async () => {
    const file = cassette('broken.jsonl', [turnLine(0, 'first'), turnLine(1, 'second')]);
    const [provider] = createReplayProviders([file], { root: work, holdUpTo: 100 });
    // Same length: the index still points at the line, whose response is no longer JSON.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"text":"second"', '"text":"seco"d"'));
    const error = await provider!.propose(request(), { key: key(1) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe(
      `${file}:2: the cassette changed while the run read it; run again once it is written`,
    );
  });

  it('a small cassette is held as it was read: an edit after opening changes nothing', async () => {
    const file = cassette('held.jsonl', [turnLine(0, 'first answer')]);
    const [provider] = createReplayProviders([file], { root: work });
    writeFileSync(file, readFileSync(file, 'utf8').replace('first answer', 'FIRST ANSWER'));
    expect((await provider!.propose(request(), { key: key(0) })).text).toBe('first answer');
  });
});
