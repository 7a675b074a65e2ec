import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepProject } from '../../src/run/index.ts';
import { readTrials } from '../../src/run-folder/index.ts';
import { trialFacts } from '../../src/score/index.ts';
import { wilsonInterval } from '../../src/stats/index.ts';
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
    const html = readFileSync(join(result.runDir, 'report.html'), 'utf8');
    expect(html).toContain('Sweep: selection and schema tokens against catalog size');
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
