import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCassetteLineShape, shapeCheckSource } from '../../src/spec/index.ts';
import { CassetteLine } from '../../src/spec/index.ts';
import { checkCassetteLine } from '../../providers/replay/cassette-line.ts';
import { NeedsSchema, checkWithoutSchema } from '../../providers/replay/check-without-schema.ts';

// checkCassetteLine trusts the cheap check instead of the zod schema for the
// lines it accepts; that is only sound if the check never accepts what zod
// would reject or change (strip a key, fill a default).

const root = path.resolve(import.meta.dirname, '../..');

function samples(): unknown[] {
  const shipped = readFileSync(path.join(root, 'suites/tickets/cassettes/synthetic-careful.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .slice(0, 25)
    .map((line) => JSON.parse(line) as unknown);
  const handWritten = {
    v: 1,
    provider: 'openai',
    model: 'm',
    key: { domain: 'd', task: 't', surface: 's', trial: '*', turn: 1 },
    label: 'synthetic: x',
    request_hash: 'sha256:a',
    tools_hash: 'sha256:b',
    messages_hash: 'sha256:c',
    response: {
      text: 'hi',
      tool_calls: [{ id: 'c1', name: 'a_b', arguments: '{"x":1}' }],
      usage: { input_tokens: 3, output_tokens: 4 },
      latency_ms: 1.5,
      finish_reason: 'tool_calls',
      warnings: ['w'],
    },
  };
  return [...shipped, handWritten];
}

const WRONG_VALUES: unknown[] = [undefined, null, '', '*', -1, 1.5, 0, 2 ** 60, true, [], {}, [{}], ['x']];

function* mutations(value: unknown, at: (string | number)[] = []): Generator<(string | number)[]> {
  if (value === null || typeof value !== 'object') return;
  for (const key of Array.isArray(value) ? value.keys() : Object.keys(value)) {
    yield [...at, key];
    yield* mutations((value as Record<string | number, unknown>)[key], [...at, key]);
  }
}

function mutate(value: unknown, at: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let target = copy;
  for (const key of at.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  const last = at.at(-1)!;
  if (replacement === undefined) {
    if (Array.isArray(target)) target.splice(last as number, 1);
    else delete target[last];
  } else target[last] = replacement;
  return copy;
}

/** Every sample, each mutated at every place, with extra keys at every level. */
function candidates(): unknown[] {
  return samples().flatMap((line) => {
    const all = [...mutations(line)].flatMap((at) => WRONG_VALUES.map((wrong) => mutate(line, at, wrong)));
    // Extra keys at every level: the line and key are strict, the turn strips them.
    const levels: (string | number)[][] = [[], ['key'], ['response'], ['response', 'usage']];
    if ((line as { response: { tool_calls?: unknown[] } }).response.tool_calls?.length)
      levels.push(['response', 'tool_calls', 0]);
    for (const at of levels) all.push(mutate(line, [...at, 'extra'], 1));
    // Both a response and an error, and neither: the refinement, which the structural check does not see.
    all.push(mutate(line, ['error'], { status: 500, message: 'down', retryable: true }));
    all.push(mutate(line, ['response'], undefined));
    return all;
  });
}

describe('isCassetteLineShape agrees with CassetteLine', () => {
  it('accepts recorded lines as they are written', () => {
    for (const line of samples()) expect(isCassetteLineShape(line)).toBe(true);
  });

  it('never accepts a mutated line that zod rejects or would change', () => {
    let checked = 0;
    for (const candidate of candidates()) {
      const json = JSON.parse(JSON.stringify(candidate)) as unknown;
      checked += 1;
      if (!isCassetteLineShape(json)) continue;
      const parsed = CassetteLine.safeParse(json);
      expect(parsed.success, JSON.stringify(json)).toBe(true);
      expect(parsed.data).toEqual(json);
    }
    expect(checked).toBeGreaterThan(2_000);
  });
});

// The cassette worker checks lines without zod (providers/replay/cassette-prefetch.ts):
// what it takes must be exactly what checkCassetteLine takes without the schema.
describe('checkWithoutSchema (the cassette worker’s check) agrees with checkCassetteLine', () => {
  const withoutSchema = checkWithoutSchema(structuredClone(shapeCheckSource(CassetteLine)));

  it('takes the lines isCassetteLineShape takes, as checkCassetteLine does; sends every other to the schema', () => {
    let taken = 0;
    let sent = 0;
    for (const candidate of candidates()) {
      const text = JSON.stringify(candidate);
      const json = JSON.parse(text) as unknown;
      const check = () => withoutSchema(text, 'c.jsonl', 7);
      if (isCassetteLineShape(json)) {
        expect(check()).toEqual(checkCassetteLine(text, 'c.jsonl', 7));
        taken += 1;
      } else {
        expect(check).toThrow(NeedsSchema);
        sent += 1;
      }
    }
    expect(Math.min(taken, sent)).toBeGreaterThan(100);
  });

  it('reports a line that is not JSON, and skips a blank one, as checkCassetteLine does', () => {
    for (const text of ['{"v":1,', 'not json', '', '   ', '{"v":1} trailing'])
      expect(withoutSchema(text, 'c.jsonl', 3)).toEqual(checkCassetteLine(text, 'c.jsonl', 3));
    expect(withoutSchema('{"v":1,', 'c.jsonl', 3)).toMatchObject({ issues: [{ file: 'c.jsonl', line: 3 }] });
  });
});

// Replay reads a turn's response alone, found after the line's one `"response":`
// (providers/replay/cassette-index.ts, responseSpan). That is sound only while a
// line the structural check takes has no key its schema does not name, and no
// key but the line's own is or ends in `response`.
describe('the keys of a cassette line, as responseSpan relies on them', () => {
  interface Def {
    type: string;
    [field: string]: unknown;
  }
  const defOf = (schema: unknown) => (schema as { _zod: { def: Def } })._zod.def;

  /** Every key of every object a line may hold, by its path ('' for the line's own). */
  function keysOf(schema: unknown, at: string, keys: [string, string][], seen = new Set<unknown>()): void {
    if (seen.has(schema)) return;
    seen.add(schema);
    const def = defOf(schema);
    switch (def.type) {
      case 'object': {
        const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
        expect(catchall === undefined || catchall === 'never', `${at}: an object that keeps unknown keys`).toBe(true);
        for (const [key, value] of Object.entries(def.shape as Record<string, unknown>)) {
          keys.push([at, key]);
          keysOf(value, at === '' ? key : `${at}.${key}`, keys, seen);
        }
        return;
      }
      case 'optional':
      case 'nullable':
      case 'default':
        return keysOf(def.innerType, at, keys, seen);
      case 'array':
        return keysOf(def.element, `${at}[]`, keys, seen);
      case 'union':
        for (const option of def.options as unknown[]) keysOf(option, at, keys, seen);
        return;
      case 'lazy':
        return keysOf((def.getter as () => unknown)(), at, keys, seen);
      case 'string':
      case 'number':
      case 'boolean':
      case 'null':
      case 'literal':
      case 'enum':
        return;
      default:
        // A record, unknown or any value could hold any key, `response` too.
        throw new Error(`${at}: a ${def.type} value; revisit responseSpan before allowing it`);
    }
  }

  it('no object keeps keys its schema does not name; only the line’s own key is or ends in `response`; no key holds a quote', () => {
    const keys: [string, string][] = [];
    keysOf(CassetteLine, '', keys);
    expect(keys.length).toBeGreaterThan(20);
    expect(keys.filter(([, key]) => key.endsWith('response'))).toEqual([['', 'response']]);
    expect(keys.filter(([, key]) => /["\\]/.test(key))).toEqual([]);
  });
});
