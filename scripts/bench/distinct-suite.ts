import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The "distinct tasks" workload of issue 20: the shape of promptfoo's
 * offline tool-call recipe, written the way a user writes a generated suite.
 * One declarative domain (`desk`, five tools from an OpenAI tools file, no
 * code), one surface, N must-call tasks that are all different (each asks
 * about its own city, symbol, amount, route or phrase), one trial each, and
 * a cassette (distinct-cassette.ts) whose first turn picks the wrong tool
 * ~20 % of the time and sends malformed JSON ~2 % of the time.
 *
 * Task files hold 1,000 tasks each (the loader refuses files over 5 MB, and
 * nobody keeps 100,000 tasks in one file), in YAML flow style as in
 * docs/example.md; `format: 'json'` writes the same tasks as JSON files.
 */

export const DISTINCT_DOMAIN = 'desk';
export const DISTINCT_SURFACE = 'desk-v1';
export const DISTINCT_MODEL = 'distinct-model';
export const DISTINCT_CASSETTE = 'cassettes/distinct.jsonl';
export const TASKS_PER_FILE = 1_000;

/** One of the five tools: its definition, its action, and how a task of index `n` asks for it. */
interface ToolRecipe {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The argument the task constrains, and its value for task n. */
  key: string;
  value(n: number): string;
  /** The other arguments a right call sends. */
  extra(n: number): Record<string, unknown>;
  question(n: number): string;
  output: Record<string, unknown>;
}

const string = (description: string) => ({ type: 'string', description });

export const TOOLS: readonly ToolRecipe[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: {
      type: 'object',
      properties: { city: string('City name, e.g. Paris'), unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
      additionalProperties: false,
    },
    key: 'city',
    value: (n) => `Town ${n}`,
    extra: () => ({}),
    question: (n) => `What is the weather like in Town ${n} right now?`,
    output: { temperature_c: 7, sky: 'cloudy' },
  },
  {
    name: 'get_stock_price',
    description: 'Latest price of a stock by its ticker symbol.',
    parameters: {
      type: 'object',
      properties: { symbol: string('Ticker symbol, e.g. ACME') },
      required: ['symbol'],
      additionalProperties: false,
    },
    key: 'symbol',
    value: (n) => `S${n}`,
    extra: () => ({}),
    question: (n) => `How much is one share of S${n} trading at?`,
    output: { price: 101.5, currency: 'USD' },
  },
  {
    name: 'convert_currency',
    description: 'Convert an amount from one currency to another at the current rate.',
    parameters: {
      type: 'object',
      properties: { amount: string('The amount, e.g. 12.50'), from: string('ISO code'), to: string('ISO code') },
      required: ['amount', 'from', 'to'],
      additionalProperties: false,
    },
    key: 'amount',
    value: (n) => `${n}.25`,
    extra: () => ({ from: 'EUR', to: 'USD' }),
    question: (n) => `Convert ${n}.25 EUR to US dollars, please.`,
    output: { converted: 12.34, currency: 'USD' },
  },
  {
    name: 'search_flights',
    description: 'Search flights between two airports.',
    parameters: {
      type: 'object',
      properties: { origin: string('Departure airport code'), destination: string('Arrival airport code') },
      required: ['origin', 'destination'],
      additionalProperties: false,
    },
    key: 'destination',
    value: (n) => `D${n}`,
    extra: () => ({ origin: 'LHR' }),
    question: (n) => `Find me flights from LHR to airport D${n}.`,
    output: { flights: 3 },
  },
  {
    name: 'translate_text',
    description: 'Translate a text into another language.',
    parameters: {
      type: 'object',
      properties: { text: string('The text to translate'), target_language: string('Language code, e.g. fr') },
      required: ['text', 'target_language'],
      additionalProperties: false,
    },
    key: 'text',
    value: (n) => `good morning number ${n}`,
    extra: () => ({ target_language: 'fr' }),
    question: (n) => `Translate "good morning number ${n}" into French.`,
    output: { translation: 'bonjour' },
  },
];

export const actionOf = (tool: ToolRecipe) => `${DISTINCT_DOMAIN}.${tool.name}`;

/** What the model does first on task n: the right tool, the next tool (wrong, ~20 %), or the right one with broken JSON (~2 %). */
export type FirstTurn = 'right' | 'wrong' | 'malformed';

export function firstTurnOf(n: number): FirstTurn {
  // A fixed permutation of 0..99 (37 is coprime to 100), so the mix is exact per hundred tasks and spread out.
  const draw = (n * 37 + 11) % 100;
  if (draw < 20) return 'wrong';
  if (draw < 22) return 'malformed';
  return 'right';
}

export const toolOf = (n: number) => TOOLS[n % TOOLS.length]!;
export const taskId = (n: number) => `ask-${String(n).padStart(6, '0')}`;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function taskSpec(n: number) {
  const tool = toolOf(n);
  return {
    id: taskId(n),
    kind: 'must-call',
    messages: [{ role: 'user', content: tool.question(n) }],
    expect: { action: actionOf(tool), args: { [tool.key]: tool.value(n) } },
  };
}

/** One task as a person writes it in YAML: flow mappings, one line per field. */
function yamlTask(n: number): string {
  const spec = taskSpec(n);
  const tool = toolOf(n);
  return [
    `  - id: ${spec.id}`,
    `    kind: must-call`,
    `    messages: [{ role: user, content: ${JSON.stringify(tool.question(n))} }]`,
    `    expect: { action: ${spec.expect.action}, args: { ${tool.key}: ${JSON.stringify(tool.value(n))} } }`,
  ].join('\n');
}

/** Write the project under `root`: config, domain.yaml, tools.json, one surface, `tasks` task files' worth of tasks. */
export function writeDistinctProject(root: string, options: { tasks: number; format?: 'yaml' | 'json' }): void {
  const format = options.format ?? 'yaml';
  write(
    path.join(root, 'toolmark.config.yaml'),
    [
      'v: 1',
      `domains: [${DISTINCT_DOMAIN}]`,
      'run:',
      `  providers: ["replay:${DISTINCT_CASSETTE}"]`,
      '  trials: 1',
      '  concurrency: 8',
      '  split: train',
      '  out: results',
      'prices:',
      `  ${DISTINCT_MODEL}: { input_per_million: 0.4, output_per_million: 1.6 }`,
      '',
    ].join('\n'),
  );
  const dir = path.join(root, 'suites', DISTINCT_DOMAIN);
  write(
    path.join(dir, 'tools.json'),
    `${JSON.stringify(
      TOOLS.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      })),
      null,
      2,
    )}\n`,
  );
  const actions = TOOLS.map((tool) =>
    [
      `  - id: ${actionOf(tool)}`,
      `    from: ${tool.name}`,
      '    responses:',
      `      - when: { ${tool.key}: { any: true } }`,
      `        output: ${JSON.stringify(tool.output)}`,
    ].join('\n'),
  );
  write(
    path.join(dir, 'domain.yaml'),
    [
      'v: 1',
      `name: ${DISTINCT_DOMAIN}`,
      'description: A help desk with five tools from an OpenAI tools file',
      'tools_file: { path: tools.json, format: openai }',
      'actions:',
      ...actions,
      '',
    ].join('\n'),
  );
  write(
    path.join(dir, 'surfaces', `${DISTINCT_SURFACE}.yaml`),
    [
      'v: 1',
      `id: ${DISTINCT_SURFACE}`,
      'tools:',
      ...TOOLS.map((tool) => `  - { action: ${actionOf(tool)}, name: ${tool.name} }`),
      '',
    ].join('\n'),
  );
  for (let first = 0; first < options.tasks; first += TASKS_PER_FILE) {
    const numbers = Array.from({ length: Math.min(TASKS_PER_FILE, options.tasks - first) }, (_unused, i) => first + i);
    const name = `part-${String(first / TASKS_PER_FILE + 1).padStart(3, '0')}`;
    if (format === 'json')
      write(path.join(dir, 'tasks', `${name}.json`), `${JSON.stringify({ v: 1, tasks: numbers.map(taskSpec) })}\n`);
    else write(path.join(dir, 'tasks', `${name}.yaml`), `v: 1\ntasks:\n${numbers.map(yamlTask).join('\n')}\n`);
  }
}
