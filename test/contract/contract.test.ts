import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runContract, type ContractResult } from '../../src/contract/index.ts';
import { containsSubset } from '../../src/contract/checks.ts';
import { ConfigError } from '../../src/spec/index.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CASES = 'suites/tickets/contract-cases.yaml';

let dir: string;
let result: ContractResult;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolmark-contract-'));
  result = await runContract({ root: ROOT, cases: CASES, outDir: join(dir, 'out') });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A copy of the shipped case file, edited, in the temp folder. */
async function variant(edit: (spec: any) => void): Promise<string> {
  const spec = parse(await readFile(join(ROOT, CASES), 'utf8'));
  spec.domain = join(ROOT, 'suites/tickets/domain.ts');
  edit(spec);
  const file = join(dir, `cases-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, stringify(spec));
  return file;
}

describe('toolmark contract (in process)', () => {
  it('reproduces the reference table from real execution', () => {
    const { wide, typed } = result.summary.runtimes;
    expect([wide.passed, wide.cases]).toEqual([1, 11]);
    expect([typed.passed, typed.cases]).toEqual([11, 11]);
    expect([wide.unsafe_side_effects, typed.unsafe_side_effects]).toEqual([4, 0]);
    expect([wide.duplicate_side_effects, typed.duplicate_side_effects]).toEqual([2, 0]);
    expect([wide.actionable_error_rate, typed.actionable_error_rate]).toEqual([0, 1]);
    expect(result.summary.gate.passed).toBe(true);
    expect(result.summary.regressions).toEqual([]);
  });

  it('derives the counts from the runs themselves', () => {
    // Recount from the raw per-call effects: which writes were unauthorized or repeated a key.
    const recount = (runtime: 'wide' | 'typed') => {
      const effects = result.runs[runtime].flatMap((run) => run.calls.flatMap((call) => call.effects));
      return {
        writes: effects.length,
        unsafe: effects.filter((effect) => !effect.authorized).length,
        duplicate: effects.filter((effect) => effect.duplicate).length,
      };
    };
    expect(recount('wide')).toEqual({ writes: 8, unsafe: 4, duplicate: 2 });
    expect(recount('typed')).toEqual({ writes: 2, unsafe: 0, duplicate: 0 });
    const unsafeCases = result.runs.wide.filter((run) => run.unsafe_side_effects > 0).map((run) => run.case);
    expect(unsafeCases).toEqual([
      'preview-before-write',
      'write-needs-approval',
      'invalid-arguments',
      'permission-boundary',
    ]);
    const duplicateCases = result.runs.wide.filter((run) => run.duplicate_side_effects > 0).map((run) => run.case);
    expect(duplicateCases).toEqual(['duplicate-action', 'idempotency-conflict']);
  });

  it('reports the typed registry refusing with the specific codes', () => {
    const finalCodes = Object.fromEntries(
      result.runs.typed.map((run) => {
        const final = run.calls[run.calls.length - 1]!.result;
        return [run.case, final.ok ? (final.replayed ? 'replayed' : 'ok') : final.error.code];
      }),
    );
    expect(finalCodes).toEqual({
      'read-ticket': 'ok',
      'preview-before-write': 'approval_required',
      'write-needs-approval': 'approval_required',
      'invalid-arguments': 'invalid_arguments',
      'permission-boundary': 'permission_denied',
      'duplicate-action': 'replayed',
      'idempotency-conflict': 'idempotency_conflict',
      'transient-timeout': 'tool_timeout',
      'bounded-list': 'ok',
      'ticket-not-found': 'ticket_not_found',
      'invalid-cursor': 'invalid_cursor',
    });
  });

  it('measures the schema cost of each tools payload', () => {
    const { wide, typed } = result.summary.runtimes;
    expect(wide.schema_bytes).toBeGreaterThan(0);
    expect(typed.schema_bytes).toBeGreaterThan(wide.schema_bytes);
    expect(typed.schema_tokens).toBeGreaterThan(wide.schema_tokens);
    expect(wide.schema_tokens).toBeLessThan(wide.schema_bytes);
  });

  it('writes summary.json, report.md and one jsonl line per case', async () => {
    const out = join(dir, 'out');
    expect(JSON.parse(await readFile(join(out, 'summary.json'), 'utf8'))).toEqual(result.summary);
    const markdown = await readFile(join(out, 'report.md'), 'utf8');
    expect(markdown).toContain('not a measure of model tool-selection accuracy');
    expect(markdown).toContain('| cases passed | 1/11 | 11/11 |');
    const lines = (await readFile(join(out, 'cases.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.case)).toEqual(result.summary.cases.map((entry) => entry.id));
    expect(lines[0]).toMatchObject({ v: 1, wide: { runtime: 'wide' }, typed: { runtime: 'typed' } });
  });
});

describe('toolmark contract (gate and bad input)', () => {
  it('fails the gate when the typed registry lets an unapproved write through', async () => {
    // The user now approved the edited note: the typed registry writes it, which the case forbids.
    const file = await variant((spec) => {
      const preview = spec.cases.find((entry: any) => entry.id === 'preview-before-write');
      preview.approvals.push({
        action: 'ticket.record_followup',
        arguments: { ticket_id: 'T-104', note: 'Customer confirmed the fix works; closing.' },
      });
    });
    const { summary } = await runContract({ root: ROOT, cases: file });
    expect(summary.runtimes.typed.passed).toBe(10);
    expect(summary.gate.passed).toBe(false);
    expect(summary.gate.checks.typed_passes_all_cases).toBe(false);
    expect(summary.gate.checks.typed_errors_actionable).toBe(false);
  });

  it('rejects a malformed case file with file, line and field', async () => {
    const file = await variant((spec) => {
      spec.cases[2].expect.okay = true;
      spec.cases[3].typed[0].tool = 'ticket.operation';
    });
    const error = await runContract({ root: ROOT, cases: file }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]).toMatchObject({
      field: 'cases[2].expect.okay',
      line: expect.any(Number),
      message: 'unknown field "okay"',
    });
  });

  it('names a proposal for a tool outside its runtime', async () => {
    const file = await variant((spec) => {
      spec.cases[3].typed[0].tool = 'ticket.operation';
    });
    const error = (await runContract({ root: ROOT, cases: file }).catch((caught) => caught)) as ConfigError;
    expect(error.issues).toEqual([
      expect.objectContaining({
        field: 'cases[3].typed[0].tool',
        message: '"ticket.operation" is not a tool of the typed runtime',
      }),
    ]);
  });
});

describe('containsSubset', () => {
  it('matches nested objects by key and other values exactly', () => {
    expect(containsSubset({ a: 1, b: { c: [1, 2], d: 'x' } }, { b: { c: [1, 2] } })).toBe(true);
    expect(containsSubset({ a: 1 }, { a: '1' })).toBe(false);
    expect(containsSubset({ a: [1, 2, 3] }, { a: [1, 2] })).toBe(false);
    expect(containsSubset(null, { a: 1 })).toBe(false);
  });
});

describe('toolmark contract (CLI)', () => {
  it('prints the summary with --json, writes --out, and exits 0', async () => {
    const out = join(dir, 'cli-out');
    const { stdout } = await run(process.execPath, ['bin/toolmark.js', 'contract', '--json', '--out', out], {
      cwd: ROOT,
    });
    const summary = JSON.parse(stdout);
    expect(summary.runtimes.wide.passed).toBe(1);
    expect(summary.runtimes.typed.passed).toBe(11);
    expect([summary.runtimes.wide.unsafe_side_effects, summary.runtimes.typed.unsafe_side_effects]).toEqual([4, 0]);
    expect([summary.runtimes.wide.duplicate_side_effects, summary.runtimes.typed.duplicate_side_effects]).toEqual([
      2, 0,
    ]);
    expect([summary.runtimes.wide.actionable_error_rate, summary.runtimes.typed.actionable_error_rate]).toEqual([0, 1]);
    expect(JSON.parse(await readFile(join(out, 'summary.json'), 'utf8'))).toEqual(summary);
  });

  it('exits 1 when the gate fails and 2 for a bad case file', async () => {
    const failing = await variant((spec) => {
      spec.cases[0].expect.output.status = 'open';
    });
    const gate = await run(
      process.execPath,
      ['bin/toolmark.js', 'contract', '--cases', failing, '--out', join(dir, 'gate-out')],
      { cwd: ROOT },
    ).catch((caught) => caught);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toContain('gate: FAIL');

    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, 'v: 1\ncases: [\n');
    const bad = await run(process.execPath, ['bin/toolmark.js', 'contract', '--cases', broken], { cwd: ROOT }).catch(
      (caught) => caught,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/broken\.yaml:\d+/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
