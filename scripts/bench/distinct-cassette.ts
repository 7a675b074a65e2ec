import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadProject } from '../../src/load/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import type { CassetteLine, ModelTurn, Provider, TurnKey } from '../../src/spec/index.ts';
import { recordingProvider } from '../../providers/recording.ts';
import { DISTINCT_CASSETTE, DISTINCT_MODEL, TOOLS, firstTurnOf, toolOf } from './distinct-suite.ts';

/**
 * The distinct workload's cassette, recorded through the real trial loop
 * inside the real recording provider (so every line carries the request
 * hash replay checks), from a deterministic fake model: turn 0 calls the
 * task's tool (or the next tool, or the right one with JSON cut short, by
 * `firstTurnOf`), turn 1 answers in text. One `trial: "*"` line per turn.
 */

function call(name: string, args: Record<string, unknown>, broken: boolean): ModelTurn['tool_calls'][number] {
  const text = JSON.stringify(args);
  return { id: 'call-0', name, arguments: broken ? text.slice(0, -1) : text };
}

function turnOf(key: TurnKey): ModelTurn {
  const n = Number(key.task.slice('ask-'.length));
  const usage = { input_tokens: 210 + 60 * key.turn, output_tokens: 12 + (n % 9) };
  const base = { usage, latency_ms: 300 + (n % 200), warnings: [] };
  if (key.turn > 0)
    return { ...base, text: `Here is what I found for request ${n}.`, tool_calls: [], finish_reason: 'stop' };
  const first = firstTurnOf(n);
  const right = toolOf(n);
  const tool = first === 'wrong' ? TOOLS[(TOOLS.indexOf(right) + 1) % TOOLS.length]! : right;
  const args = { [tool.key]: tool.value(n), ...tool.extra(n) };
  return {
    ...base,
    text: null,
    tool_calls: [call(tool.name, args, first === 'malformed')],
    finish_reason: 'tool_calls',
  };
}

/** Record the cassette of the distinct project at `root`; returns its line count. */
export async function recordDistinctCassette(root: string): Promise<{ lines: number }> {
  const project = await loadProject(root);
  const domain = project.domains[0]!;
  const surface = domain.surfaces[0]!;
  const model: Provider = {
    id: 'synthetic',
    model: DISTINCT_MODEL,
    offline: true,
    propose: async (_request, options) => turnOf(options!.key!),
  };
  const lines: string[] = [];
  const write = (line: CassetteLine) =>
    lines.push(
      JSON.stringify({ ...line, key: { ...line.key, trial: '*' }, label: 'synthetic: distinct-tasks fake model' }),
    );
  const provider = recordingProvider(model, { write });
  const settings = { temperature: project.config.run.temperature, max_tokens: project.config.run.max_tokens };
  for (const task of domain.tasks)
    await runTrial({ provider, domain: domain.domain, surface, task, trial: 0, settings });
  const file = path.join(root, DISTINCT_CASSETTE);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { lines: lines.length };
}
