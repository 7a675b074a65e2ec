import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/load/index.ts';
import { plainTask } from '../../src/load/plain-task.ts';
import { ConfigError, formatConfigIssue, TaskSpec } from '../../src/spec/index.ts';
import { projectWith } from './materialize.ts';

// plainTask (src/load/plain-task.ts) checks the plain task without zod. For
// every item it accepts it must give exactly what zod's parse gives (same
// fields, values, key order, defaults); anything else it must leave to zod,
// which also words every issue.

const WHERE = { file: 'suites/d/tasks/a.yaml', line: 3 };

/** What the loader built before the plain path: zod's parse plus where the task came from. */
function throughZod(item: unknown) {
  const parsed = TaskSpec.safeParse(item);
  return parsed.success ? { ...parsed.data, domain: 'd', split: 'train' as const, source: WHERE } : undefined;
}

/** Keys in a different order: the plain path must not depend on it, or must refuse. Absent fields are left out, as YAML does. */
function reordered<T extends Record<string, unknown>>(item: T, reverse: boolean): T {
  const entries = Object.entries(item).filter(([, value]) => value !== undefined);
  return Object.fromEntries(reverse ? entries.reverse() : entries) as T;
}

/** Mostly valid values, sometimes invalid ones. */
const pick = <T>(valid: T[], invalid: T[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...valid), weight: 6 }, { arbitrary: fc.constantFrom(...invalid), weight: 1 });
/** Some of the fields, each mostly valid; the rest absent. */
const someOf = (fields: Record<string, fc.Arbitrary<unknown>>, always: string[] = []) =>
  fc
    .tuple(fc.record(fields), fc.subarray(Object.keys(fields).filter((key) => !always.includes(key))), fc.boolean())
    .map(([values, chosen, reverse]) =>
      reordered(
        Object.fromEntries(Object.entries(values).filter(([key]) => always.includes(key) || chosen.includes(key))),
        reverse,
      ),
    );

const strings = pick<unknown>([[], ['a', 'b']], [['a', 3], 'a']);
const constraint = fc.oneof(
  fc.constantFrom<unknown>('Town 0', 5, 2.5, true, null, -0, { any: true }, { regex: '^a' }, { contains: 'x' }),
  fc.constantFrom<unknown>(Infinity, { any: false }, { regex: 3 }, { one_of: ['a'] }, { default: 5 }),
  fc.constantFrom<unknown>({ regex: 'a', any: true }, ['a'], { nested: 'x' }),
);
const args = fc.oneof(
  {
    arbitrary: fc.dictionary(fc.constantFrom('city', 'n', 'text', '__proto__'), constraint, { maxKeys: 3 }),
    weight: 6,
  },
  { arbitrary: fc.constantFrom<unknown>('city', null, ['a']), weight: 1 },
);
const expectation = fc.oneof(
  { arbitrary: someOf({ action: pick<unknown>(['desk.get_weather'], [3]), args }, ['action']), weight: 4 },
  {
    arbitrary: someOf({
      action: pick<unknown>(['desk.get_weather'], [3]),
      abstain: pick<unknown>([true], [false]),
      any_of: strings,
      sequence: fc.constant(['desk.get_weather']),
      args,
      distractors: strings,
      forbid_effects: pick<unknown>([['write'], ['read', 'destructive']], [['nope']]),
      final_state: fc.constant({ notes: { any: true } }),
      evidence: strings,
      ask: pick<unknown>([true, false], ['yes']),
      ask_about: fc.constant(['address']),
      min_calls: pick<unknown>([0, 2, -0], [-1, 1.5]),
      extra: fc.constant(1),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant('x'), weight: 1 },
);
const message = pick<unknown>(
  [
    { role: 'user', content: 'Hi' },
    { role: 'system', content: 'Be brief' },
    { role: 'assistant', content: 'Ok' },
  ],
  [
    { content: 'Hi', role: 'user' },
    { role: 'user' },
    { role: 'user', content: 'Hi', extra: 1 },
    { role: 'robot', content: 'Hi' },
    { role: 'user', content: 3 },
  ],
);
const task = someOf(
  {
    id: pick<unknown>(['ask-000001', 'a.b_c'], ['.hidden', '', 7]),
    kind: pick<unknown>(['must-call', 'must-abstain', 'similar-tool', 'multi-step'], ['nope']),
    description: pick<unknown>(['A task'], [3]),
    messages: fc.oneof(
      { arbitrary: fc.array(message, { minLength: 1, maxLength: 2 }), weight: 6 },
      { arbitrary: fc.constantFrom<unknown>([], 'Hi'), weight: 1 },
    ),
    actor: pick<unknown>(
      [{}, { id: 'ops' }, { permissions: ['a:b'] }, { id: 'ops', extra: 1 }],
      [{ id: 3 }, { permissions: 'a' }, 'ops'],
    ),
    approve: pick<unknown>(['none', 'all', 'after_preview'], ['sometimes']),
    expect: expectation,
    faults: pick<unknown>([[]], [[{ action: 'desk.get_weather' }], 'none']),
    limits: pick<unknown>(
      [{}, { max_calls: 3 }, { max_turns: 2, max_calls: 1 }],
      [{ max_calls: 0 }, { max_calls: 1.5 }, { x: 1 }],
    ),
    tags: strings,
    extra: fc.constant(1),
  },
  ['id', 'kind', 'messages', 'expect'],
);

describe('plain task check', () => {
  it('gives what zod gives for every task it accepts, and leaves the rest to zod', () => {
    let accepted = 0;
    fc.assert(
      fc.property(task, (item) => {
        const plain = plainTask(item, 'd', 'train', WHERE);
        if (plain === undefined) return;
        accepted++;
        const expected = throughZod(item);
        expect(expected, JSON.stringify(item)).toBeDefined();
        expect(plain).toStrictEqual(expected);
        expect(JSON.stringify(plain)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 20000 },
    );
    expect(accepted).toBeGreaterThan(200);
  });

  it('takes the generated must-call task, with the defaults zod fills in', () => {
    const item = {
      id: 'ask-000000',
      kind: 'must-call',
      messages: [{ role: 'user', content: 'What is the weather like in Town 0 right now?' }],
      expect: { action: 'desk.get_weather', args: { city: 'Town 0' } },
    };
    const plain = plainTask(item, 'd', 'train', WHERE);
    expect(plain).toStrictEqual(throughZod(item));
    expect(Object.keys(plain!)).toEqual(Object.keys(throughZod(item)!));
  });

  it('leaves to zod what it does not build: faults, sequences, final_state, other operators, descriptions', () => {
    const base = { id: 'a', kind: 'must-call', messages: [{ role: 'user', content: 'Hi' }] };
    for (const item of [
      { ...base, expect: { action: 'x' }, faults: [{ action: 'x' }] },
      { ...base, kind: 'multi-step', expect: { sequence: ['x'] } },
      { ...base, expect: { action: 'x', final_state: { notes: { any: true } } } },
      { ...base, expect: { action: 'x', args: { a: { one_of: ['b'] } } } },
      { ...base, expect: { action: 'x' }, description: 'A task' },
      { ...base, expect: { args: {}, action: 'x' } }, // keys out of the schema's order
    ])
      expect(plainTask(item, 'd', 'train', WHERE), JSON.stringify(item)).toBeUndefined();
  });
});

describe('loading a generated task file', () => {
  const disposers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(disposers.map((dispose) => dispose()));
  });

  it('loads plain and other tasks alike, and words a bad one with file, line, column and field', async () => {
    const lines = ['v: 1', 'tasks:'];
    for (let index = 0; index < 30; index++)
      lines.push(
        `  - id: ask-${index}`,
        '    kind: must-call',
        `    messages: [{ role: user, content: "What does note N-${index} say?" }]`,
        `    expect: { action: note.get, args: { note_id: "N-${index}" } }`,
      );
    const good = `${lines.join('\n')}\n`;
    const project = await projectWith({ 'suites/notes/tasks/generated.yaml': good }, 'plain-good');
    disposers.push(project.dispose);
    const tasks = (await loadProject(project.root)).domains[0]!.tasks.filter((item) => item.id.startsWith('ask-'));
    expect(tasks).toHaveLength(30);
    expect(tasks[7]).toMatchObject({
      id: 'ask-7',
      expect: { action: 'note.get', args: { note_id: 'N-7' } },
      actor: { id: 'user', permissions: [] },
      source: { file: 'suites/notes/tasks/generated.yaml', line: 3 + 7 * 4 },
    });

    // Task 12 gets a kind that does not exist: same file shape, one issue pointing at it.
    const bad = good.replace('  - id: ask-12\n    kind: must-call', '  - id: ask-12\n    kind: must-cal');
    const broken = await projectWith({ 'suites/notes/tasks/generated.yaml': bad }, 'plain-bad');
    disposers.push(broken.dispose);
    const error = await loadProject(broken.root).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      file: 'suites/notes/tasks/generated.yaml',
      line: 3 + 12 * 4 + 1,
      column: 11,
      field: 'tasks[12].kind',
    });
    expect(formatConfigIssue(issues[0]!)).toContain('must-cal');
  });
});
