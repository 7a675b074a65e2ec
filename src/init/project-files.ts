import { stringify } from 'yaml';
import type { CassetteLine, TaskSpec } from '../spec/index.ts';
import { sampleArguments } from './sample-arguments.ts';
import type { ScaffoldTool } from './scaffold-tool.ts';

/** The one surface the scaffold writes: the tools exactly as the tools file shows them. */
export const SCAFFOLD_SURFACE = 'v1';
const CASSETTE_LABEL = 'hand-written starter fixture from toolmark init: scripted answers, not a real model';

/** `toolmark.config.yaml` for a one-domain project that replays its cassettes by default. */
export function configSource(domain: string, model: string): string {
  return `# toolmark project defaults; command-line flags override them.
# Format: docs/formats.md#config in the toolmark package.
v: 1
domains: [${domain}]

run:
  # Replay needs no key: it reads the cassettes under suites/*/cassettes/.
  # The starter cassette is hand-written (scripted answers, not a model).
  # Record a real one with a key:
  #   npx toolmark run --provider ${model} --record suites/${domain}/cassettes/recorded.jsonl
  providers: [replay:suites/*/cassettes/*.jsonl]
  trials: 3
  split: all
  out: results

# USD per million tokens, by model name. Check your provider's current prices.
prices:
  ${model.replace(/^[^:]+:/, '')}: { input_per_million: 0.40, output_per_million: 1.60 }
  replay: { input_per_million: 0, output_per_million: 0 }

# What \`toolmark gate\` (nightly) fails on, against the baseline run.
gate:
  max_task_success_drop: noise
  max_unsafe_side_effects: 0
  min_argument_validity: 0.9
  junit_min_success: 0.5
`;
}

/** `surfaces/v1.yaml`: every tool under its own name and description. */
export function surfaceSource(tools: ScaffoldTool[]): string {
  const body = stringify(
    {
      v: 1,
      id: SCAFFOLD_SURFACE,
      description: 'The tools as the tools file defines them',
      strict: false,
      tools: tools.map((tool) => ({ action: tool.name, name: tool.name, description: tool.description })),
    },
    { lineWidth: 0 },
  );
  return `# What the model sees. A revision extends this one and lists only what
# changes (names, descriptions, parameter texts, order):
#   id: v2
#   extends: v1
#   tools:
#     - action: ${tools[0]!.name}
#       description: A clearer description.
# Format: docs/formats.md#surface in the toolmark package.
${body}`;
}

const sentence = (text: string) => text.trim().replace(/[.\s]+$/, '');
const anyArguments = (tool: ScaffoldTool) =>
  Object.fromEntries(((tool.inputSchema.required as string[] | undefined) ?? []).map((name) => [name, { any: true }]));

/** A starter task of each kind for one split; `first`/`second` are the tools it exercises. */
function tasksFor(domain: string, split: 'train' | 'heldout', first: ScaffoldTool, second: ScaffoldTool): TaskSpec[] {
  const prefix = split === 'train' ? domain : `heldout-${domain}`;
  const args = (tool: ScaffoldTool) => {
    const constraints = anyArguments(tool);
    return Object.keys(constraints).length > 0 ? { args: constraints } : {};
  };
  const distractor = first.name !== second.name ? { distractors: [first.name] } : {};
  return [
    {
      id: `${prefix}-call-${first.name}`,
      kind: 'must-call',
      messages: [{ role: 'user', content: `${sentence(first.description)}, please.` }],
      expect: { action: first.name, ...args(first) },
    },
    {
      id: `${prefix}-abstain-${split === 'train' ? 'thanks' : 'out-of-scope'}`,
      kind: 'must-abstain',
      messages: [
        {
          role: 'user',
          content: split === 'train' ? "Thanks, that's all for now." : 'Can you recommend a good book about whales?',
        },
      ],
      expect: { abstain: true, forbid_effects: ['write', 'destructive'] },
    },
    {
      id: `${prefix}-similar-${second.name}`,
      kind: 'similar-tool',
      messages: [{ role: 'user', content: `I need exactly this: ${sentence(second.description).toLowerCase()}.` }],
      expect: { action: second.name, ...distractor, ...args(second) },
    },
    {
      id: `${prefix}-multi-${first.name}-then-${second.name}`,
      kind: 'multi-step',
      messages: [
        {
          role: 'user',
          content: `First: ${sentence(first.description).toLowerCase()}. Then: ${sentence(second.description).toLowerCase()}.`,
        },
      ],
      expect: { sequence: [{ action: first.name }, { action: second.name }] },
      limits: { max_calls: 4, max_turns: 5 },
    },
  ] as TaskSpec[];
}

/** A task file's text: train or held-out, one task of each kind. */
export function taskFileSource(domain: string, split: 'train' | 'heldout', tools: ScaffoldTool[]): string {
  const [a, b] = split === 'train' ? [tools[0]!, tools[1] ?? tools[0]!] : [tools[1] ?? tools[0]!, tools[0]!];
  const note =
    split === 'train'
      ? '# Train split: the tasks you tune surface descriptions against.'
      : '# Held-out split: never tune a surface against these; a revision that\n# helps train but not held-out is flagged as likely overfit.';
  return `${note}
# One starter task of each kind. Replace the messages with real requests
# your users make, and tighten \`args\` ({any: true} accepts anything) to the
# values each request implies. Format: docs/formats.md#task.
${stringify({ v: 1, tasks: tasksFor(domain, split, a, b) }, { lineWidth: 0 })}`;
}

/**
 * The starter cassette: for every task, the answer a careful model would
 * give (the expected calls with sample arguments, then a short reply), so
 * `toolmark run` prints a first table with no key. Hand-written lines: no
 * request hash, `trial: "*"` answers every trial.
 */
export function starterCassette(domain: string, tools: ScaffoldTool[]): string {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const lines: CassetteLine[] = [];
  const call = (name: string, index: number) => ({
    id: `call-${index + 1}`,
    name,
    arguments: JSON.stringify(sampleArguments(byName.get(name)!.inputSchema)),
  });
  for (const split of ['train', 'heldout'] as const) {
    const [a, b] = split === 'train' ? [tools[0]!, tools[1] ?? tools[0]!] : [tools[1] ?? tools[0]!, tools[0]!];
    for (const task of tasksFor(domain, split, a, b)) {
      const calls = task.expect.abstain
        ? []
        : task.expect.sequence
          ? task.expect.sequence.map((step) => (step as { action: string }).action)
          : [task.expect.action!];
      const turns = [
        ...calls.map((name, index) => ({ text: null, tool_calls: [call(name, index)] })),
        { text: calls.length ? 'Done.' : 'Happy to help whenever you need me.', tool_calls: [] },
      ];
      turns.forEach((response, turn) => {
        lines.push({
          v: 1,
          provider: 'scripted',
          model: 'starter',
          label: CASSETTE_LABEL,
          key: { domain, task: task.id, surface: SCAFFOLD_SURFACE, trial: '*', turn },
          response: {
            ...response,
            usage: { input_tokens: 0, output_tokens: 0 },
            latency_ms: 0,
            finish_reason: response.tool_calls.length ? 'tool_calls' : 'stop',
            warnings: [],
          },
        });
      });
    }
  }
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}
