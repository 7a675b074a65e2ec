import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { buildSweep } from '../../src/run/index.ts';
import { requestTools, runEmulatedSearch } from '../../src/solve/tool-search.ts';
import type { ModelMessage, ModelRequest, ModelTurn, ResolvedSurface, Task, TurnKey } from '../../src/spec/index.ts';
import { CAREFUL, type Behaviour } from '../../scripts/synthetic/behaviours.ts';
import type { Policy, PolicyContext } from '../../scripts/synthetic/policy.ts';
import { searchingPolicy, searchQuery } from '../../scripts/synthetic/searching.ts';

const root = path.resolve(import.meta.dirname, '../..');
let domain: LoadedDomain;
let eager: ResolvedSurface;
let deferred: ResolvedSurface;

beforeAll(async () => {
  const project = await loadProject(root, { domains: ['tickets'] });
  const { project: swept } = await buildSweep(project, {
    surface: 'typed-v2',
    sizes: [10],
    from: ['generated'],
    loading: ['eager', 'deferred'],
  });
  domain = swept.domains[0]!;
  eager = domain.surfaces.find((surface) => surface.id === 'typed-v2.n10')!;
  deferred = domain.surfaces.find((surface) => surface.id === 'typed-v2.n10.deferred')!;
});

const userTask = (...contents: string[]) =>
  ({ messages: contents.map((content) => ({ role: 'user', content })) }) as unknown as Task;

describe('searchQuery: the user’s content words', () => {
  it('drops stopwords, one-letter terms and numbers (ids), keeps first occurrences in order', () => {
    // what, s, the, of, T, 102 dropped: "status ticket".
    expect(searchQuery(userTask("What's the status of ticket T-102?"))).toBe('status ticket');
    expect(
      searchQuery(
        userTask('The customer on T-117 is chasing us and says nobody ever replied. Can you pull the ticket up?'),
      ),
    ).toBe('customer chasing says ever replied pull ticket');
    // System messages are not the user's words; a second user message adds its new words only.
    const task = {
      messages: [
        { role: 'system', content: 'Read-only access to tickets.' },
        { role: 'user', content: 'List open tickets' },
        { role: 'user', content: 'open tickets waiting' },
      ],
    } as unknown as Task;
    expect(searchQuery(task)).toBe('list open tickets waiting');
  });
});

/** An inner policy that always wants `name`, and remembers what it was shown. */
function wants(name: string) {
  const seen: { request: ModelRequest; key: TurnKey; context: PolicyContext }[] = [];
  const policy: Policy = (request, key, context) => {
    seen.push({ request, key, context });
    return {
      text: null,
      tool_calls: [{ id: `c${key.turn}`, name, arguments: '{"ticket_id":"T-102"}' }],
      usage: { input_tokens: 10, output_tokens: 5 },
      latency_ms: 1,
      finish_reason: 'tool_calls',
      warnings: [],
    };
  };
  return { policy, seen };
}

const task = () => domain.tasks.find((candidate) => candidate.id === 'tickets-status-t102')!;
const key = (surface: ResolvedSurface, turn: number): TurnKey => ({
  domain: 'tickets',
  task: 'tickets-status-t102',
  surface: surface.id,
  trial: 0,
  turn,
});
const context = (surface: ResolvedSurface): PolicyContext => ({
  task: task(),
  surface,
  parent: null,
  actions: domain.domain.actions,
});
const request = (surface: ResolvedSurface, messages: ModelMessage[], loaded: string[] = []): ModelRequest => ({
  model: 'synthetic',
  system: null,
  messages: [...(task().messages as ModelMessage[]), ...messages],
  tools: requestTools(surface, { loaded }).tools,
  tool_choice: 'auto',
  settings: {},
});

/** The transcript after the wrapper's search turn: the call and the emulated search's real result. */
function afterSearch(query: string): { messages: ModelMessage[]; loaded: string[] } {
  const call = { id: 'search_0', name: 'search_tools', arguments: JSON.stringify({ query }) };
  const search = runEmulatedSearch(deferred, call, 0);
  return {
    messages: [
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, name: call.name, content: search.content, is_error: false },
    ],
    loaded: search.record.results.map((hit) => hit.tool),
  };
}

const withRate = (rate: number): Behaviour => ({
  ...CAREFUL,
  rates: { ...CAREFUL.rates, pickClosestWhenMissing: rate },
});

describe('searchingPolicy on a deferred rung', () => {
  it('on an eager surface it is the inner policy, unchanged', () => {
    const inner = wants('get_ticket');
    const request0 = request(eager, []);
    const turn = searchingPolicy(inner.policy, CAREFUL)(request0, key(eager, 0), context(eager));
    expect(turn.tool_calls.map((call) => call.name)).toEqual(['get_ticket']);
    expect(inner.seen[0]!.request).toBe(request0);
  });

  it('wanting a tool it was not sent: searches first, with the user’s words (never the tool’s)', () => {
    const inner = wants('get_ticket');
    const turn = searchingPolicy(inner.policy, CAREFUL)(request(deferred, []), key(deferred, 0), context(deferred));
    expect(turn.tool_calls).toEqual([{ id: 'search_0', name: 'search_tools', arguments: '{"query":"status ticket"}' }]);
    // The inner policy saw no tool at all: search_tools is the wrapper's, and nothing is loaded yet.
    expect(inner.seen[0]!.request.tools).toEqual([]);
    expect(inner.seen[0]!.context.surface.tools).toEqual([]);
  });

  it('after a search that found the tool: the inner policy chooses among the found tools, turns numbered as if eager', () => {
    const inner = wants('get_ticket');
    const { messages, loaded } = afterSearch('status ticket');
    expect(loaded).toContain('get_ticket');
    const turn = searchingPolicy(inner.policy, CAREFUL)(
      request(deferred, messages, loaded),
      key(deferred, 1),
      context(deferred),
    );
    expect(turn.tool_calls.map((call) => call.name)).toEqual(['get_ticket']);
    const seen = inner.seen[0]!;
    expect(seen.key.turn).toBe(0);
    expect(seen.request.messages).toEqual(task().messages);
    expect(seen.request.tools.map((tool) => tool.name)).toEqual(loaded);
    // Only the found tools are the surface it knows (distractors found are payload tools no action maps to).
    expect(seen.context.surface.tools.every((tool) => loaded.includes(tool.name))).toBe(true);
  });

  it('after a search that missed the tool: calls the first result (rate 1) or asks (rate 0), never the missing tool', () => {
    // "draft" and "note" are words of the follow-up tools' texts and not of get_ticket's ("notes" is another term).
    const { messages, loaded } = afterSearch('draft note');
    expect(loaded.length).toBeGreaterThan(0);
    expect(loaded).not.toContain('get_ticket');
    const transcript = request(deferred, messages, loaded);
    const picked = searchingPolicy(wants('get_ticket').policy, withRate(1))(
      transcript,
      key(deferred, 1),
      context(deferred),
    );
    expect(picked.tool_calls).toEqual([{ id: 'c0', name: loaded[0], arguments: '{"ticket_id":"T-102"}' }]);
    const asked: ModelTurn = searchingPolicy(wants('get_ticket').policy, withRate(0))(
      transcript,
      key(deferred, 1),
      context(deferred),
    );
    expect(asked.tool_calls).toEqual([]);
    expect(asked.finish_reason).toBe('stop');
    expect(asked.text).toContain('I searched the tool catalog for "draft note"');
    expect(asked.text).toContain(loaded.join(', '));
  });
});
