import * as nodeCrypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { canonicalJson, requestHash } from '../../src/spec/index.ts';
import { askedOnce } from '../../src/spec/request-hash.ts';
import type { ModelRequest, Provider, ToolDefinition } from '../../src/spec/index.ts';
import { buildRequest, initialMessages, planTrials, preflight } from '../../src/solve/index.ts';
import { withTaskCopies } from '../../src/solve/plan.ts';
import { makeTask, notesRunDomain, typedSurface } from '../solve/fixtures/notes-domain.ts';

// Counts the hashes made, so the test sees whether a request was hashed or found
// (in one call, `hash`, where node has it; else through a `Hash` object).
vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return {
    ...original,
    createHash: vi.fn(original.createHash),
    ...(original.hash ? { hash: vi.fn(original.hash) } : {}),
  };
});
const hashesMade = () =>
  vi.mocked(createHash).mock.calls.length + (nodeCrypto.hash ? vi.mocked(nodeCrypto.hash).mock.calls.length : 0);

const tools: ToolDefinition[] = [
  { name: 'get_note', description: 'Read a note.', parameters: { type: 'object', properties: {} }, strict: true },
];
const task = { messages: [{ role: 'user' as const, content: 'Read N-1' }] };

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'm',
    system: null,
    messages: initialMessages(task),
    tools,
    tool_choice: 'auto',
    settings: {},
    ...overrides,
  };
}

/** The hash as the cassette format defines it, computed here by hand. */
function expected(value: ModelRequest): string {
  const { settings: _settings, ...hashed } = value;
  return `sha256:${createHash('sha256').update(canonicalJson(hashed)).digest('hex')}`;
}

describe('request hash reuse (pre-flight, then turn 0)', () => {
  it('a new request made of the same parts is found, not hashed again; a copied part is hashed again, to the same value', () => {
    const first = request();
    const before = hashesMade();
    const hash = requestHash(first);
    expect(hashesMade()).toBe(before + 1);
    // Turn 0 of the trial: a new request object and array, the task's message objects, the surface's tools array.
    const again = request({ settings: { temperature: 0.5 } });
    expect(again).not.toBe(first);
    expect(requestHash(again)).toBe(hash);
    // Replay asks for the same request's hash again.
    expect(requestHash(again)).toBe(hash);
    expect(requestHash(request())).toBe(hash);
    expect(hashesMade()).toBe(before + 1);
    // The same text from other objects is hashed again and agrees.
    const copied = request({
      messages: [{ role: 'user', content: 'Read N-1' }],
      tools: tools.map((tool) => ({ ...tool })),
    });
    expect(requestHash(copied)).toBe(hash);
    expect(hashesMade()).toBe(before + 2);
    const expectedHash = expected(first);
    expect(hash).toBe(expectedHash);
  });

  it('a growing conversation hashes to the defined value turn after turn; once it moved on, its first request is hashed again', () => {
    const opening = initialMessages({ messages: [{ role: 'user', content: 'Read N-7' }] });
    const turn0 = request({ messages: opening });
    const hash0 = requestHash(turn0);
    const answer = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'c1', name: 'get_note', arguments: '{}' }],
    };
    const result = {
      role: 'tool' as const,
      tool_call_id: 'c1',
      name: 'get_note',
      content: '{"id":"N-7"}',
      is_error: false,
    };
    const turn1 = request({ messages: [...opening, answer, result] });
    const turn2 = request({
      messages: [...opening, answer, result, { role: 'assistant', content: 'Done.', tool_calls: [] }],
    });
    expect(requestHash(turn1)).toBe(expected(turn1));
    expect(requestHash(turn2)).toBe(expected(turn2));
    // Turn 1 moved the conversation on: what turn 0 left is gone, so the same parts are hashed again, to the same value.
    const before = hashesMade();
    expect(requestHash(request({ messages: opening }))).toBe(hash0);
    expect(hashesMade()).toBe(before + 1);
    expect(hash0).toBe(expected(turn0));
  });

  it('a request differing in any hashed part is hashed anew', () => {
    const base = requestHash(request());
    for (const changed of [
      request({ model: 'other' }),
      request({ system: 'Be brief.' }),
      request({ tool_choice: 'required' }),
      request({ tools: [] }),
      request({ messages: [...initialMessages(task), { role: 'user', content: 'and N-2' }] }),
    ]) {
      const before = hashesMade();
      const hash = requestHash(changed);
      expect(hashesMade()).toBe(before + 1);
      expect(hash).not.toBe(base);
      expect(hash).toBe(expected(changed));
    }
  });

  it('text beyond ASCII, a lone surrogate and a request of many kilobytes hash to the defined value, turn after turn', () => {
    const big = 'ü€😀 '.repeat(5_000);
    const opening = initialMessages({ messages: [{ role: 'user', content: `Read ${big}` }] });
    const wideTools: ToolDefinition[] = [{ ...tools[0]!, description: `Ĳ ${'x'.repeat(40_000)}` }];
    const turn0 = request({ messages: opening, tools: wideTools, system: 'Sé brief \ud800.' });
    expect(requestHash(turn0)).toBe(expected(turn0));
    const result = {
      role: 'tool' as const,
      tool_call_id: 'c1',
      name: 'get_note',
      content: `\udfff ${big}`,
      is_error: false,
    };
    const answer = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'c1', name: 'get_note', arguments: '{}' }],
    };
    const turn1 = request({ messages: [...opening, answer, result], tools: wideTools, system: 'Sé brief \ud800.' });
    expect(requestHash(turn1)).toBe(expected(turn1));
    // Turn 2 starts from turn 1's kept text: the same bytes as the whole conversation hashed anew.
    const turn2 = request({
      messages: [...turn1.messages, { role: 'assistant', content: 'Fin ✓', tool_calls: [] }],
      tools: wideTools,
      system: 'Sé brief \ud800.',
    });
    expect(requestHash(turn2)).toBe(expected(turn2));
  });

  it('requests of every length, in any order, and alternating models, systems and tool choices hash to the defined value', () => {
    // Short and long requests (either side of a few kilobytes), a short one right after a long one, and
    // the fields between the messages and the tools changing back and forth.
    const sizes = [10, 1_300, 1_400, 3_000, 5, 20_000, 1_340, 0];
    const parts: Partial<ModelRequest>[] = [
      {},
      { model: 'other' },
      { system: 'Be brief.' },
      { model: 'ünï' },
      { tool_choice: 'required', system: 'Be brief.' },
      { tool_search: { type: 'tool_search' } as unknown as ModelRequest['tool_search'] },
    ];
    for (const [at, size] of sizes.entries()) {
      for (const [index, overrides] of parts.entries()) {
        const messages = initialMessages({
          messages: [{ role: 'user', content: `${at}.${index} ${'y'.repeat(size)}` }],
        });
        const built = request({ messages, ...overrides });
        expect(requestHash(built)).toBe(expected(built));
      }
    }
  });

  it("initialMessages gives a new array of the task's shared messages each time", () => {
    const one = initialMessages(task);
    const two = initialMessages(task);
    expect(one).not.toBe(two);
    expect(one[0]).toBe(two[0]);
    one.push({ role: 'user', content: 'more' });
    expect(initialMessages(task)).toHaveLength(1);
  });

  it('a request asked about once (a large run’s pre-flight on task copies) hashes alike and leaves nothing to find', () => {
    const copy = { messages: [{ role: 'user' as const, content: 'Read N-9' }] };
    const messages = initialMessages(copy, { remember: false });
    // Not kept by the task: the next call makes new message objects.
    expect(initialMessages(copy, { remember: false })[0]).not.toBe(messages[0]);
    const once = askedOnce(request({ messages }));
    // The mark is unseen by copies and JSON (Object.keys lists no symbols, so it cannot tell).
    expect(Object.getOwnPropertySymbols({ ...once })).toEqual([]);
    expect(JSON.stringify(once)).toBe(JSON.stringify(request({ messages })));
    const defined = expected(once);
    const before = hashesMade();
    const hash = requestHash(once);
    expect(hash).toBe(defined);
    // Neither the same request nor one of the same parts finds it: each is hashed again.
    expect(requestHash(once)).toBe(hash);
    expect(requestHash(request({ messages }))).toBe(hash);
    expect(hashesMade()).toBe(before + 3);
    // The pre-flight's requests on copies: marked, with unremembered messages, the same hash as the trial's.
    const built = buildRequest({ model: 'm', surface: typedSurface, messages, askedOnce: true });
    const trial = buildRequest({ model: 'm', surface: typedSurface, messages: initialMessages(copy) });
    const made = hashesMade();
    expect(requestHash(built)).toBe(requestHash(trial));
    expect(requestHash(buildRequest({ model: 'm', surface: typedSurface, messages: initialMessages(copy) }))).toBe(
      requestHash(trial),
    );
    expect(hashesMade()).toBe(made + 2);
  });

  it('the pre-flight of copied tasks (askedOnce) remembers nothing; of the plan’s own tasks, their first requests’ hashes', () => {
    /** Whether a copy of the last request the pre-flight checked (hashed there, as replay's check does) is found. */
    const foundAgain = (copies: boolean) => {
      const domain = notesRunDomain([
        makeTask({
          id: `read-${copies}`,
          kind: 'must-call',
          messages: [{ role: 'user', content: `Read N-${copies}` }],
          expect: { action: 'note.get' },
        }),
      ]);
      let captured: ModelRequest | null = null;
      const provider: Provider = {
        id: 'fake',
        model: 'm',
        offline: true,
        propose: () => Promise.reject(new Error('not called by a pre-flight')),
        check(request) {
          captured = request;
          requestHash(request);
          return null;
        },
      };
      const plan = planTrials([domain], [provider], { split: 'all', trials: 1 });
      if (copies) preflight(withTaskCopies(plan), { askedOnce: true });
      else preflight(plan);
      const before = hashesMade();
      requestHash({ ...captured! });
      return hashesMade() === before;
    };
    expect(foundAgain(true)).toBe(false);
    expect(foundAgain(false)).toBe(true);
  });
});
