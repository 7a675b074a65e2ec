import { appendFileSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { takePrefetchedCassettes } from '../../providers/replay/cassette-prefetch.ts';
import { checkCassetteLine } from '../../providers/replay/cassette-line.ts';
import { readCassettes } from '../../providers/replay/read-cassettes.ts';
import {
  ReplayProvider,
  createReplayProviders,
  prefetchCassettes,
  prefetchedCassettes,
} from '../../providers/replay/index.ts';
import { ConfigError } from '../../src/spec/index.ts';
import type { CassetteLine } from '../../src/spec/index.ts';
import { answerLine } from './cassette-lines.ts';

// A run reads its cassettes in a worker while the project loads; what the
// providers answer must be what reading them in the main thread gives.

const work = mkdtempSync(path.join(tmpdir(), 'toolmark-cassette-prefetch-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const line = (task: string, turn: number, extra: Partial<CassetteLine> = {}) =>
  answerLine({ domain: 'notes', task, surface: 'typed', turn }, `${task} turn ${turn}`, {
    request_hash: `sha256:${String(turn).repeat(64)}`,
    ...extra,
  });

function cassette(name: string, lines: string[]): string {
  writeFileSync(path.join(work, name), `${lines.join('\n')}\n`);
  return name;
}

const key = (task: string, turn: number, trial = 0) => ({ domain: 'notes', task, surface: 'typed', trial, turn });
const request = { model: 'careful', system: null, messages: [], tools: [], tool_choice: 'auto' as const, settings: {} };

async function prefetched(name: string) {
  // Small, as test cassettes are: prefetched all the same.
  prefetchCassettes([name], work, { minBytes: 0 });
  await prefetchedCassettes([name], work);
}

describe('cassette prefetch', () => {
  it('the worker’s index answers what reading in this thread answers: turns, stale and missing ones', async () => {
    const lines = Array.from({ length: 3000 }, (_, index) => line(`task-${index % 1000}`, Math.floor(index / 1000)));
    lines.push(line('task-7', 0, { key: { ...key('task-7', 0), trial: 4 }, model: 'other' }));
    const name = cassette('many.jsonl', lines);
    await prefetched(name);
    const fromWorker = takePrefetchedCassettes([name], { root: work });
    expect(fromWorker).not.toBeNull();
    const viaWorker = [...fromWorker!].sort().map(([model, turns]) => new ReplayProvider(model, turns));
    const here = createReplayProviders([name], { root: work });
    expect(viaWorker.map((provider) => provider.model)).toEqual(['careful', 'other']);
    for (const [index, provider] of viaWorker.entries()) {
      for (const asked of [key('task-0', 0), key('task-999', 2, 3), key('task-7', 0, 4), key('task-5', 3)]) {
        expect(provider.check(request, asked)).toEqual(here[index]!.check(request, asked));
        const answer = (replay: typeof provider) =>
          replay.propose(request, { key: asked }).then(
            (turn) => turn.text,
            (error: Error) => error.message,
          );
        expect(await answer(provider)).toBe(await answer(here[index]!));
      }
    }
    // Replayed even though stale: the line the worker indexed, read from the file.
    const allowed = new ReplayProvider('careful', fromWorker!.get('careful')!, { allowStale: true });
    expect((await allowed.propose(request, { key: key('task-999', 2) })).text).toBe('task-999 turn 2');
  });

  it('a bad line found by the worker is the same ConfigError, with file:line', async () => {
    const name = cassette('bad.jsonl', [line('a', 0), '{"v":1,', line('b', 0, { v: 2 as 1 })]);
    const inThread = (() => {
      try {
        createReplayProviders([name], { root: work });
      } catch (error) {
        return error as ConfigError;
      }
      return null;
    })();
    expect(inThread).toBeInstanceOf(ConfigError);
    expect(inThread!.message).toContain(`${path.join(work, name)}:2`);
    await prefetched(name);
    expect(() => takePrefetchedCassettes([name], { root: work })).toThrow(inThread!.message);
  });

  it('a line only the schema takes (defaults to fill in) is read by the schema in the worker too', async () => {
    // The worker checks lines without zod, and imports the schema for a line its check does not take.
    const bare = JSON.stringify({
      v: 1,
      provider: 'openai',
      model: 'careful',
      key: key('bare', 0),
      response: { text: 'hand-written' },
    });
    const name = cassette('defaults.jsonl', [line('a', 0), bare, line('b', 0)]);
    await prefetched(name);
    const fromWorker = takePrefetchedCassettes([name], { root: work });
    expect(fromWorker).not.toBeNull();
    const viaWorker = new ReplayProvider('careful', fromWorker!.get('careful')!, { allowStale: true });
    const [here] = createReplayProviders([name], { root: work, allowStale: true });
    for (const asked of [key('a', 0), key('bare', 0), key('b', 0)])
      expect(await viaWorker.propose(request, { key: asked })).toEqual(await here!.propose(request, { key: asked }));
    expect(await viaWorker.propose(request, { key: key('bare', 0) })).toMatchObject({
      text: 'hand-written',
      tool_calls: [],
      finish_reason: 'stop',
    });
  });

  it('the worker hands over the bytes of a cassette held in memory; one larger than the caller holds is read from its file', async () => {
    const lines = Array.from({ length: 50 }, (_, index) => line(`task-${index}`, 0));
    const name = cassette('handed.jsonl', lines);
    const file = path.join(work, name);
    const handOver = new Map<string, Buffer>();
    readCassettes([name], { root: work, check: checkCassetteLine, indexOnly: true, handOver });
    expect([...handOver.keys()]).toEqual([file]);
    expect(handOver.get(file)!.equals(readFileSync(file))).toBe(true);
    const none = new Map<string, Buffer>();
    readCassettes([name], { root: work, check: checkCassetteLine, indexOnly: true, handOver: none, holdUpTo: 100 });
    expect(none.size).toBe(0);

    const original = `${lines.join('\n')}\n`;
    // A whole second, so that the stamp the worker took is given back exactly after the edit.
    const SECOND = 1_000_000_000;
    const answer = async (holdUpTo?: number) => {
      writeFileSync(file, original);
      utimesSync(file, SECOND, SECOND);
      await prefetched(name);
      // Edited after the worker read it, with the same length and time: the file still looks as
      // the worker found it, so only a cassette read from the file (not the bytes handed over)
      // answers the edit.
      writeFileSync(file, original.replace('task-3 turn 0', 'TASK-3 TURN 0'));
      utimesSync(file, SECOND, SECOND);
      const turns = takePrefetchedCassettes([name], { root: work, holdUpTo })!.get('careful')!;
      const provider = new ReplayProvider('careful', turns, { allowStale: true });
      const turn = await provider.propose(request, { key: key('task-3', 0) });
      writeFileSync(file, original);
      return turn.text;
    };
    expect(await answer()).toBe('task-3 turn 0');
    expect(await answer(100)).toBe('TASK-3 TURN 0');
  });

  it('a small cassette is read where it is used, without a worker', async () => {
    const name = cassette('small.jsonl', [line('a', 0)]);
    prefetchCassettes([name], work);
    await prefetchedCassettes([name], work);
    expect(takePrefetchedCassettes([name], { root: work })).toBeNull();
  });

  it('a cassette changed after the worker read it is read again here', async () => {
    const name = cassette('changing.jsonl', [line('a', 0)]);
    await prefetched(name);
    appendFileSync(path.join(work, name), `${line('c', 0)}\n`);
    const [provider] = createReplayProviders([name], { root: work });
    expect(provider!.check(request, key('c', 0))?.kind).toBe('stale');
  });
});
