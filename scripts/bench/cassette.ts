import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadProject } from '../../src/load/index.ts';
import { runTrial } from '../../src/solve/index.ts';
import type { CassetteLine, ModelRequest, ResolvedSurface, TurnKey } from '../../src/spec/index.ts';
import { recordingProvider } from '../../providers/recording.ts';
import { ScriptedProvider, type ScriptedTurn } from '../../providers/scripted.ts';
import { BENCH_MODEL, CASSETTE_PATH } from './suite.ts';
import { benchTasks, type BenchTask, type Script, type ScriptCall } from './tasks.ts';

/**
 * The bench cassette is recorded, not hand-written: a scripted model plays
 * each task's script through the real trial loop wrapped in the real
 * recording provider, so every line carries the request hash replay checks.
 * Two recordings per task × surface: trial 0 (usual behaviour) becomes the
 * `trial: "*"` line that answers every trial; trial 1 (a miss) is copied to
 * every trial whose number is `BAD_OFFSET` mod `BAD_EVERY`, so trials of a
 * task disagree (flip rate, pass^k) the way real runs do.
 */

export const BAD_EVERY = 10;
export const BAD_OFFSET = 7;

/** The exposed tool name and call arguments for an action on a surface. */
function exposedCall(surface: ResolvedSurface, call: ScriptCall): { name: string; arguments: string } {
  for (const tool of surface.tools) {
    const mapping = tool.mapping;
    if (mapping.kind === 'identity' && mapping.action === call.action)
      return { name: tool.name, arguments: encode(call.args, call.broken) };
    if (mapping.kind === 'multiplexed') {
      const selector = Object.entries(mapping.map).find(([, action]) => action === call.action)?.[0];
      if (selector === undefined) continue;
      const args = mapping.arguments
        ? { [mapping.field]: selector, [mapping.arguments]: call.args }
        : { [mapping.field]: selector, ...call.args };
      return { name: tool.name, arguments: encode(args, call.broken) };
    }
  }
  throw new Error(`bench: surface ${surface.id} has no tool for ${call.action}`);
}

/** JSON arguments; broken = cut before the closing brace, as a small model sometimes sends. */
function encode(args: Record<string, unknown>, broken = false): string {
  const text = JSON.stringify(args);
  return broken ? text.slice(0, -1) : text;
}

/** The scripted model: the turn number says which call of the script to make; past the calls, answer. */
function scriptedTurn(script: Script, surface: ResolvedSurface, key: TurnKey): ScriptedTurn {
  const usage = { input_tokens: 320 + 90 * key.turn, output_tokens: 18 + (key.task.length % 7) };
  const latency_ms = 380 + ((key.turn * 37 + key.task.length * 11) % 240);
  const call = script.calls[key.turn];
  if (!call) return { text: script.text, tool_calls: [], usage, latency_ms, finish_reason: 'stop' };
  return {
    text: null,
    tool_calls: [{ id: `call-${key.turn}`, ...exposedCall(surface, call) }],
    usage,
    latency_ms,
    finish_reason: 'tool_calls',
  };
}

/**
 * Record the cassette of the project at `root` for runs of `trials` trials
 * per task × surface; returns the number of lines written.
 */
export async function recordBenchCassette(root: string, trials: number): Promise<{ lines: number; file: string }> {
  const project = await loadProject(root);
  const domain = project.domains[0]!;
  const tasks = new Map<string, BenchTask>(benchTasks().map((task) => [task.spec.id as string, task]));
  const surfaces = new Map(domain.surfaces.map((surface) => [surface.id, surface]));
  const recorded: CassetteLine[] = [];
  const scripted = new ScriptedProvider(
    (_request: ModelRequest, key: TurnKey | undefined) => {
      const task = tasks.get(key!.task)!;
      const surface = surfaces.get(key!.surface)!;
      const usual =
        task.weakOnWide && surface.tools.some((tool) => tool.mapping.kind === 'multiplexed') ? task.bad : task.good;
      return scriptedTurn(key!.trial === 0 ? usual : task.bad, surface, key!);
    },
    { id: 'synthetic', model: BENCH_MODEL },
  );
  const provider = recordingProvider(scripted, { write: (line) => recorded.push(line) });
  // The same settings object a run sends (from `run:` in the config), so request hashes match.
  const settings = { temperature: project.config.run.temperature, max_tokens: project.config.run.max_tokens };
  for (const surface of domain.surfaces) {
    for (const task of domain.tasks) {
      for (const trial of [0, 1]) await runTrial({ provider, domain: domain.domain, surface, task, trial, settings });
    }
  }

  const badTrials: number[] = [];
  for (let trial = BAD_OFFSET; trial < trials; trial += BAD_EVERY) badTrials.push(trial);
  const out: string[] = [];
  for (const line of recorded) {
    const labelled = { ...line, label: 'synthetic: bench scripted model' };
    if (line.key.trial === 0) out.push(JSON.stringify({ ...labelled, key: { ...line.key, trial: '*' } }));
    else for (const trial of badTrials) out.push(JSON.stringify({ ...labelled, key: { ...line.key, trial } }));
  }
  const file = path.join(root, CASSETTE_PATH);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${out.join('\n')}\n`);
  return { lines: out.length, file };
}
