import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDistinctCassette } from '../../scripts/bench/distinct-cassette.ts';
import { DISTINCT_DOMAIN, writeDistinctProject } from '../../scripts/bench/distinct-suite.ts';
import { domainInputDigest } from '../../src/load/input-digest.ts';
import { withGradingInputs } from '../../src/run/grading-inputs.ts';
import { rescoreRun, runProject } from '../../src/run/index.ts';
import { readManifest } from '../../src/run-folder/index.ts';
import type { Manifest } from '../../src/spec/index.ts';
import { runCli } from '../helpers/cli.ts';

// `report --rescore` with nothing to re-grade (src/run/grading-inputs.ts):
// a run records digests of what its grades depend on; a re-score that finds
// them all unchanged grades nothing and leaves the folder byte for byte;
// any edit (a task, the config) grades again and records the new digests.

const TASKS = 12;
let root: string;
const out = () => path.join(root, 'results');

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolmark-rescore-unchanged-'));
  writeDistinctProject(root, { tasks: TASKS });
  await recordDistinctCassette(root);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file of a run folder, name → bytes. */
function folderBytes(runDir: string): Map<string, string> {
  return new Map(readdirSync(runDir).map((name) => [name, readFileSync(path.join(runDir, name), 'latin1')]));
}

const taskFile = () => path.join(root, 'suites', DISTINCT_DOMAIN, 'tasks', 'part-001.yaml');

describe('re-score with unchanged inputs', { timeout: 180_000 }, () => {
  it('records the inputs, skips a re-score that would change nothing, and grades again after an edit', async () => {
    const run = await runProject({ root, out: out(), runId: 'graded' });
    const inputs = run.manifest.grading_inputs;
    expect(inputs).toBeDefined();
    expect(Object.keys(inputs!.domains)).toEqual([DISTINCT_DOMAIN]);
    expect(readManifest(run.runDir).grading_inputs).toEqual(inputs);

    const before = folderBytes(run.runDir);
    const skipped = await rescoreRun({ runDir: run.runDir, root, skipUnchanged: true });
    expect(skipped).toMatchObject({ unchanged: true, trials: 0, changed: 0 });
    expect(skipped.summary).toEqual(run.summary);
    expect(folderBytes(run.runDir)).toEqual(before);

    // Task ask-000001 expects symbol "S1", and the recorded model called the right tool with it
    // (firstTurnOf(1) is 'right'). Expect another symbol: that one trial's grade changes.
    const text = readFileSync(taskFile(), 'utf8');
    expect(text).toContain('args: { symbol: "S1" }');
    writeFileSync(taskFile(), text.replace('args: { symbol: "S1" }', 'args: { symbol: "S99" }'));
    const regraded = await rescoreRun({ runDir: run.runDir, root, skipUnchanged: true });
    expect(regraded).toMatchObject({ unchanged: false, trials: TASKS, changed: 1 });
    const after = readManifest(run.runDir).grading_inputs!;
    expect(after.domains[DISTINCT_DOMAIN]).not.toBe(inputs!.domains[DISTINCT_DOMAIN]);
    expect(after.domains[DISTINCT_DOMAIN]).toBe(domainInputDigest(root, DISTINCT_DOMAIN));
    expect(after.code).toBe(inputs!.code);

    // Graded against today's files: the next re-score has nothing to do again.
    expect(await rescoreRun({ runDir: run.runDir, root, skipUnchanged: true })).toMatchObject({ unchanged: true });
    // Without skipUnchanged (the library's default) it grades every trial.
    expect(await rescoreRun({ runDir: run.runDir, root })).toMatchObject({ unchanged: false, trials: TASKS });

    // An edit of the config (prices, gate) is an edit of the grades' inputs too.
    appendFileSync(path.join(root, 'toolmark.config.yaml'), '# reviewed\n');
    expect(await rescoreRun({ runDir: run.runDir, root, skipUnchanged: true })).toMatchObject({
      unchanged: false,
      changed: 0,
    });
  });

  it('`toolmark report --rescore` says there is nothing to re-score and writes nothing', async () => {
    const cli = (args: string[]) => runCli(args, { cwd: root, timeoutMs: 240_000 });
    const ran = await cli(['run', '--root', root, '--run-id', 'by-cli']);
    expect(ran.code, ran.stderr).toBe(0);
    const runDir = path.join(out(), 'by-cli');
    const before = folderBytes(runDir);
    const rescored = await cli(['report', runDir, '--rescore', '--root', root]);
    expect(rescored.code, rescored.stderr).toBe(0);
    expect(rescored.stdout).toMatch(/^nothing to re-score: .* the run is unchanged\n$/);
    expect(folderBytes(runDir)).toEqual(before);
  });

  it('gives no digest to a domain whose grading can reach outside its folders', () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolmark-digest-'));
    try {
      const domain = (name: string, files: Record<string, string>) => {
        for (const [file, text] of Object.entries(files)) {
          mkdirSync(path.dirname(path.join(project, 'suites', name, file)), { recursive: true });
          writeFileSync(path.join(project, 'suites', name, file), text);
        }
      };
      domain('plain', { 'domain.yaml': 'v: 1\nname: plain\nactions: []\n', 'tasks/a.yaml': 'tasks: []\n' });
      domain('typescript', { 'domain.ts': 'export default {};\n' });
      domain('helper', { 'domain.yaml': 'v: 1\nname: helper\n', 'lib/util.mjs': 'export {};\n' });
      domain('mcp', { 'domain.yaml': 'v: 1\nname: mcp\nkind: mcp\ntools_file: tools.json\n' });
      domain('outside', { 'domain.yaml': 'v: 1\nname: outside\ntools_file: { path: ../../tools.json }\n' });
      domain('recorded', {
        'domain.yaml': 'v: 1\nname: recorded\n',
        'cassettes/run.ts': 'not code the grades depend on\n',
      });
      expect(domainInputDigest(project, 'plain')).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(domainInputDigest(project, 'typescript')).toBeNull();
      expect(domainInputDigest(project, 'helper')).toBeNull();
      expect(domainInputDigest(project, 'mcp')).toBeNull();
      expect(domainInputDigest(project, 'outside')).toBeNull();
      expect(domainInputDigest(project, 'recorded')).toMatch(/^sha256:/);

      // Held-out files count; a byte changed anywhere changes the digest.
      const first = domainInputDigest(project, 'plain');
      mkdirSync(path.join(project, 'heldout', 'plain', 'tasks'), { recursive: true });
      writeFileSync(path.join(project, 'heldout', 'plain', 'tasks', 'b.yaml'), 'tasks: []\n');
      const withHeldout = domainInputDigest(project, 'plain');
      expect(withHeldout).not.toBe(first);
      writeFileSync(path.join(project, 'heldout', 'plain', 'tasks', 'b.yaml'), 'tasks: [ ]\n');
      expect(domainInputDigest(project, 'plain')).not.toBe(withHeldout);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('a resumed run keeps its recorded inputs only when today’s are the same', () => {
    const inputs = { code: 'sha256:c', config: 'sha256:f', domains: { desk: 'sha256:d' } };
    const manifest = { run_id: 'r', grading_inputs: inputs } as unknown as Manifest;
    expect(withGradingInputs(manifest, { ...inputs }).grading_inputs).toEqual(inputs);
    expect(withGradingInputs(manifest, { ...inputs, domains: { desk: 'sha256:e' } })).not.toHaveProperty(
      'grading_inputs',
    );
    expect(withGradingInputs(manifest, undefined)).not.toHaveProperty('grading_inputs');
  });
});
