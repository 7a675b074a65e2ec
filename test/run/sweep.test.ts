import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepProject } from '../../src/run/index.ts';
import { readTrials } from '../../src/run-folder/index.ts';
import { trialFacts } from '../../src/score/index.ts';
import { wilsonInterval } from '../../src/stats/index.ts';
import type { TrialRecord } from '../../src/spec/index.ts';
import { SHIPPED_SWEEP, sweepCassette } from '../../scripts/make-sweep-cassettes.ts';
import { REPO_ROOT } from '../load/materialize.ts';

// The shipped sweep, cut to a few tasks and one trial so it stays small:
// replayed from the synthetic sweep cassettes (scripts/make-sweep-cassettes.ts).
const out = mkdtempSync(join(tmpdir(), 'toolmark-sweep-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const providers = SHIPPED_SWEEP.behaviours.map((behaviour) => `replay:${sweepCassette(REPO_ROOT, behaviour)}`);

describe('sweepProject (library)', () => {
  it('runs the ladder as one run and reads each rung’s selection (Wilson 95%) and schema tokens back', async () => {
    const result = await sweepProject({
      root: REPO_ROOT,
      domain: SHIPPED_SWEEP.domain,
      surface: SHIPPED_SWEEP.surface,
      sizes: SHIPPED_SWEEP.sizes,
      from: [...SHIPPED_SWEEP.from],
      seed: SHIPPED_SWEEP.seed,
      loading: [...SHIPPED_SWEEP.loading],
      selection: { providers, trials: 1, task: '*status*', split: 'all' },
      out,
      runId: 'library',
    });
    const { rungs } = result.manifest.sweep!;
    expect(rungs.map((rung) => [rung.surface, rung.tools, rung.distractors, rung.loading])).toEqual([
      ['typed-v2.n5', 5, 0, 'eager'],
      ['typed-v2.n10', 10, 5, 'eager'],
      ['typed-v2.n20', 20, 15, 'eager'],
      ['typed-v2.n35', 35, 30, 'eager'],
      ['typed-v2.n5.deferred', 5, 0, 'deferred'],
      ['typed-v2.n10.deferred', 10, 5, 'deferred'],
      ['typed-v2.n20.deferred', 20, 15, 'deferred'],
      ['typed-v2.n35.deferred', 35, 30, 'deferred'],
    ]);
    // Every rung is its own surface with its own hash, so `compare` can pair any two (eager vs deferred too).
    const hashes = result.manifest.surfaces.map((surface) => surface.hash);
    expect(new Set(hashes).size).toBe(8);
    // Schema tokens grow with the catalog.
    const eager = rungs.filter((rung) => rung.loading === 'eager');
    const tokens = eager.map(
      (rung) => result.manifest.surfaces.find((surface) => surface.id === rung.surface)!.schema_tokens,
    );
    expect([...tokens].sort((a, b) => a - b)).toEqual(tokens);
    expect(tokens[3]!).toBeGreaterThan(tokens[0]! * 3);

    // Each row's selection equals a count over trials.jsonl, with the Wilson interval of that count.
    expect(result.rows).toHaveLength(rungs.length * providers.length);
    const records = [];
    for await (const record of readTrials(result.runDir)) records.push(record);
    // A deferred rung (typed-v2 is eager: nothing always loaded) starts with search_tools alone, whatever
    // the size; its row's first-request tokens are those of every trial's first request.
    for (const row of result.rows.filter((candidate) => candidate.loading === 'deferred')) {
      const trials = records.filter((record) => record.model === row.model && record.surface === row.surface);
      expect(trials.length).toBeGreaterThan(0);
      for (const record of trials) {
        expect(record.loading!.via).toBe('emulated');
        expect(record.loading!.initial_schema_tokens).toBe(row.initial_schema_tokens);
      }
      expect(trials.some((record) => record.loading!.searches.length > 0)).toBe(true);
      expect(row.initial_schema_tokens).toBeLessThan(row.schema_tokens);
    }
    for (const row of result.rows) {
      const facts = records
        .filter((record) => record.model === row.model && record.surface === row.surface)
        .map(trialFacts)
        .filter((fact) => fact !== null && fact.selection !== null);
      const successes = facts.filter((fact) => fact!.selection).length;
      expect(row.selection.n).toBe(facts.length);
      expect(row.selection.value).toBeCloseTo(successes / facts.length, 10);
      const [low, high] = wilsonInterval(successes, facts.length);
      expect(row.selection.ci95![0]).toBeCloseTo(low, 10);
      expect(row.selection.ci95![1]).toBeCloseTo(high, 10);
    }

    const markdown = readFileSync(join(result.runDir, 'report.md'), 'utf8');
    expect(markdown).toContain('### Sweep: selection against catalog size');
    expect(markdown).toMatch(
      /\| replay\/synthetic-hasty \| 35 \| 30 \| eager \| [\d,]+ \| [\d,]+ \| \d+ \| \d+% \\?\[/,
    );
    expect(markdown).toMatch(
      /\| replay\/synthetic-hasty \| 35 \| 30 \| deferred \| [\d,]+ \| \d+ \| \d+ \| \d+% \\?\[/,
    );
    expect(markdown).toContain('they describe scripted behaviours');
    // The deferred curve is what BM25 retrieval found, and the report says so.
    expect(markdown).toContain("A deferred rung's selection reflects retrieval");
    expect(markdown).toContain('BM25 top 5');
    const html = readFileSync(join(result.runDir, 'report.html'), 'utf8');
    expect(html).toContain('Sweep: selection and schema tokens against catalog size');
  });

  it('a deferred rung selects what its search found: hand count on two tasks at 10 and 35 tools (careful)', async () => {
    // The scripted model searches once with the content words of the user's message (scripts/synthetic/searching.ts):
    //   tickets-check-t121-timeout     "Can you check T-121 for me?"            → "check"
    //   tickets-customer-chasing-t117  "The customer on T-117 is chasing us and says nobody ever replied.
    //                                   Can you pull the ticket up?"             → "customer chasing says ever replied pull ticket"
    // get_ticket's text (name, description, parameters) has no "check": BM25 scores it 0, so no rung finds it
    // for t121. For t117 only "ticket" matches get_ticket: it ranks 4th of 10 deferred tools at 10 (in the top 5),
    // and at 35 five tools with "customer"/"ticket" words (billing.customer.search, billing.invoice.list,
    // list_tickets, scan_tickets, search_tickets) outrank it: a miss. A careful model that misses asks (0.9) or
    // calls the first result (0.1); both are wrong selections. So, 3 trials each:
    //   n10.deferred: t117 3 of 3, t121 0 of 3 → 3 of 6;   n35.deferred: 0 of 6.
    // Eager rungs see every tool: n35 selects get_ticket in t117 3 of 3 and t121 2 of 3 (one distractor pull) → 5 of 6.
    const careful = providers[0]!;
    const result = await sweepProject({
      root: REPO_ROOT,
      domain: SHIPPED_SWEEP.domain,
      surface: SHIPPED_SWEEP.surface,
      sizes: [10, 35],
      from: [...SHIPPED_SWEEP.from],
      seed: SHIPPED_SWEEP.seed,
      loading: ['eager', 'deferred'],
      selection: { providers: [careful], trials: 3, task: 'tickets-c*', split: 'all' },
      out,
      runId: 'retrieval',
    });
    const records: TrialRecord[] = [];
    for await (const record of readTrials(result.runDir)) records.push(record);
    expect(new Set(records.map((record) => record.task))).toEqual(
      new Set(['tickets-check-t121-timeout', 'tickets-customer-chasing-t117']),
    );
    const queries = (surface: string, task: string) =>
      records
        .filter((record) => record.surface === surface && record.task === task)
        .map((record) => record.loading!.searches.map((search) => JSON.parse(search.arguments).query));
    expect(queries('typed-v2.n35.deferred', 'tickets-check-t121-timeout')).toEqual([['check'], ['check'], ['check']]);
    expect(queries('typed-v2.n10.deferred', 'tickets-customer-chasing-t117')[0]).toEqual([
      'customer chasing says ever replied pull ticket',
    ]);
    const found = (surface: string, task: string) =>
      records
        .filter((record) => record.surface === surface && record.task === task)
        .map((record) => record.loading!.searches[0]!.results.some((hit) => hit.actions.includes('ticket.get')));
    expect(found('typed-v2.n10.deferred', 'tickets-customer-chasing-t117')).toEqual([true, true, true]);
    expect(found('typed-v2.n10.deferred', 'tickets-check-t121-timeout')).toEqual([false, false, false]);
    expect(found('typed-v2.n35.deferred', 'tickets-customer-chasing-t117')).toEqual([false, false, false]);
    expect(found('typed-v2.n35.deferred', 'tickets-check-t121-timeout')).toEqual([false, false, false]);

    const row = (surface: string) => result.rows.find((candidate) => candidate.surface === surface)!;
    // Wilson 95%, z = 1.959964, z² = 3.841459, by hand:
    //   3 of 6: centre = (0.5 + z²/12)/(1 + z²/6) = 0.820122/1.640243 = 0.5;
    //           half = z·sqrt(0.25/6 + z²/144)/1.640243 = 1.959964·0.261426/1.640243 = 0.312383 → [0.187617, 0.812383]
    //   0 of 6: centre = (z²/12)/1.640243 = 0.195165, half = z·sqrt(z²/144)/1.640243 = 0.195165 → [0, 0.390330]
    //   5 of 6: centre = (0.833333 + 0.320122)/1.640243 = 0.703222;
    //           half = z·sqrt(0.833333·0.166667/6 + z²/144)/1.640243 = 1.959964·0.223215/1.640243 = 0.266724 → [0.436498, 0.969946]
    const expected: [string, number, [number, number]][] = [
      ['typed-v2.n10.deferred', 3 / 6, [0.187617, 0.812383]],
      ['typed-v2.n35.deferred', 0, [0, 0.39033]],
      ['typed-v2.n35', 5 / 6, [0.436498, 0.969946]],
    ];
    for (const [surface, value, [low, high]] of expected) {
      expect(row(surface).selection.n, surface).toBe(6);
      expect(row(surface).selection.value, surface).toBeCloseTo(value, 6);
      expect(row(surface).selection.ci95![0], surface).toBeCloseTo(low, 5);
      expect(row(surface).selection.ci95![1], surface).toBeCloseTo(high, 5);
    }
  });

  it('refuses a size below the base surface, before anything is written', async () => {
    await expect(
      sweepProject({
        root: REPO_ROOT,
        surface: 'typed-v2',
        sizes: [3, 10],
        selection: { providers },
        out,
        runId: 'small',
      }),
    ).rejects.toThrow(/size 3 is below the 5 tools of typed-v2/);
    expect(existsSync(join(out, 'small'))).toBe(false);
  });
});

function toolmark(...args: string[]) {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/toolmark.js'), ...args], {
    encoding: 'utf8',
    cwd: REPO_ROOT,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('toolmark sweep (CLI)', () => {
  it('prints the sweep table and the synthetic note, exit 0', () => {
    // The shipped sweep's sources and seed (other sources draw other distractors: a stale cassette).
    const from = SHIPPED_SWEEP.from.flatMap((source) => ['--from', source]);
    const args = ['--surface', 'typed-v2', '--sizes', '5,20', ...from, '--trials', '1', '--loading', 'eager,deferred'];
    const { code, stdout, stderr } = toolmark(
      'sweep',
      ...args,
      '--task',
      '*status*',
      '--provider',
      providers[1]!,
      '--out',
      out,
      '--run-id',
      'cli',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/tools\s+distractors\s+loading\s+schema tokens\s+first request\s+n\s+selection \[95% CI\]/);
    expect(stdout).toMatch(/^\s*5\s+0\s+eager/m);
    expect(stdout).toMatch(/^\s*20\s+15\s+eager/m);
    expect(stdout).toMatch(/^\s*20\s+15\s+deferred/m);
    expect(stdout).toContain('describe scripted behaviours');
  });

  it('bad input: exit 2 with the flag and what was expected, no stack trace, no run folder', () => {
    const { code, stdout, stderr } = toolmark(
      'sweep',
      '--surface',
      'typed-v9',
      '--sizes',
      '5',
      '--out',
      out,
      '--run-id',
      'bad',
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/--surface: unknown surface "typed-v9".*did you mean typed-v2\?/);
    expect(stderr).not.toMatch(/\n\s+at /);
    const sizes = toolmark('sweep', '--surface', 'typed-v2', '--sizes', '5,ten', '--out', out);
    expect(sizes.code).toBe(2);
    expect(sizes.stderr).toMatch(/--sizes.*ten.*not a whole number/);
    expect(existsSync(join(out, 'bad'))).toBe(false);
  });
});
