import { terms } from '../../src/solve/bm25.ts';
import {
  SEARCH_TOOL_NAME,
  type ModelMessage,
  type ModelTurn,
  type ResolvedSurface,
  type Task,
} from '../../src/spec/index.ts';
import type { Behaviour } from './behaviours.ts';
import type { Policy } from './policy.ts';
import { chance } from './random.ts';

/**
 * Words a keyword query leaves out: function words, and the verbs and
 * pronouns of a polite request ("can you check…"), which every tool
 * description could contain and none is about.
 */
const STOPWORDS = new Set(
  (
    'a about after again all am an and any anybody anyone anything are as at be been before being but by can could ' +
    'did do does doesn don for from give go got had has have he her here him his how i if in into is it its just ' +
    'know let like me mine more my myself need no nobody not now of off on one only or our out over please quick ' +
    're s she should so some t than that the their them then there these they this those to too up us ve want was ' +
    'we were what when where whether which while who why will with would yet you your'
  ).split(' '),
);

/**
 * The query the scripted model sends to `search_tools`: the content words of
 * the task's user messages, in order, once each — lower-cased terms (as BM25
 * splits them, src/solve/bm25.ts) less STOPWORDS, one-letter terms and
 * numbers (ids such as T-102 say which record, not which tool). Derived from
 * what the user wrote only, never from the tool the model needs, so whether
 * the search finds that tool is BM25's doing.
 */
export function searchQuery(task: Task): string {
  const text = task.messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join('\n');
  const words = terms(text).filter((word) => word.length > 1 && !/^\d+$/.test(word) && !STOPWORDS.has(word));
  return [...new Set(words)].join(' ');
}

/** The surface as a model on a deferred rung knows it: only the tools this request carries. */
function visibleSurface(surface: ResolvedSurface, visible: ReadonlySet<string>): ResolvedSurface {
  return {
    ...surface,
    tools: surface.tools.filter((tool) => visible.has(tool.name)),
    payload: surface.payload.filter((tool) => visible.has(tool.name)),
  };
}

/**
 * A synthetic behaviour on a deferred surface (emulated `search_tools`),
 * deciding from what retrieval found:
 *
 * 1. The inner policy sees only the tools the request carries (always-loaded
 *    ones plus what searches loaded; `search_tools` and the search turns
 *    hidden, turns numbered as on an eager surface). Its confusions and its
 *    distractor pull are drawn among those tools: the distractors it may
 *    call are the ones the search returned.
 * 2. When it wants a tool the request lacks and has not searched yet, it
 *    spends a turn on `search_tools` with `searchQuery(task)` — the user's
 *    words, not the tool's. One search per trial.
 * 3. When it has searched and the tool is still not loaded (BM25's top k
 *    missed it), it does one of two things, decided by a seeded coin at the
 *    behaviour's `pickClosestWhenMissing` rate: calls the search's first
 *    result (BM25's best match for the user's words) with the arguments it
 *    meant for the missing tool, or tells the user it found no tool for this
 *    and asks (a text turn: an abstention, scored as such).
 *
 * So a deferred rung's selection differs from the eager rung's by what the
 * search finds among the distractors. Scripted, like the behaviours: it
 * describes no real model.
 */
export function searchingPolicy(inner: Policy, behaviour: Behaviour): Policy {
  return (request, key, context) => {
    const { surface, task } = context;
    if (!surface.loading) return inner(request, key, context);
    const searchIds = new Set<string>();
    const queries: string[] = [];
    const messages: ModelMessage[] = [];
    let searchTurns = 0;
    for (const message of request.messages) {
      if (message.role === 'assistant' && message.tool_calls.some((call) => call.name === SEARCH_TOOL_NAME)) {
        searchTurns += 1;
        for (const call of message.tool_calls) {
          searchIds.add(call.id);
          queries.push((JSON.parse(call.arguments) as { query: string }).query);
        }
        continue;
      }
      if (message.role === 'tool' && searchIds.has(message.tool_call_id)) continue;
      messages.push(message);
    }
    const tools = request.tools.filter((tool) => tool.name !== SEARCH_TOOL_NAME);
    const visible = new Set(tools.map((tool) => tool.name));
    const turnIndex = key.turn - searchTurns;
    const turn = inner(
      { ...request, messages, tools },
      { ...key, turn: turnIndex },
      {
        ...context,
        surface: visibleSurface(surface, visible),
        parent: context.parent && visibleSurface(context.parent, visible),
      },
    );
    const missing = turn.tool_calls.find((call) => !visible.has(call.name));
    if (!missing) return turn;
    if (queries.length === 0) {
      return {
        ...turn,
        text: null,
        tool_calls: [
          { id: `search_${key.turn}`, name: SEARCH_TOOL_NAME, arguments: JSON.stringify({ query: searchQuery(task) }) },
        ],
        finish_reason: 'tool_calls',
      };
    }
    // Searched, and the tool it wanted is not among the results: the loaded tools, in the order the search ranked them.
    const always = new Set(surface.loading.always_loaded);
    const found = tools.filter((tool) => !always.has(tool.name));
    const seed = [behaviour.name, key.domain, key.task, key.trial, 'missing-tool', turnIndex] as const;
    if (found.length > 0 && chance(behaviour.rates.pickClosestWhenMissing, ...seed))
      return { ...turn, tool_calls: [{ ...missing, name: found[0]!.name }] };
    const results =
      found.length > 0
        ? `found ${found.map((tool) => tool.name).join(', ')}, but none of these`
        : 'found no tool, so nothing';
    const text =
      `I searched the tool catalog for "${queries.at(-1)}" and ${results} does what you asked; I haven't done ` +
      `anything. Could you tell me which tool to use, or how you'd like to proceed?`;
    return {
      ...turn,
      text,
      tool_calls: [],
      usage: { ...turn.usage, output_tokens: Math.max(4, Math.round(text.length / 4)) },
      finish_reason: 'stop',
    };
  };
}
