import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordDistinctCassette } from '../../scripts/bench/distinct-cassette.ts';
import { DISTINCT_DOMAIN, DISTINCT_SURFACE, writeDistinctProject } from '../../scripts/bench/distinct-suite.ts';
import { rescoreRun, runProject } from '../../src/run/index.ts';
import { QUICK_CHECK_FILES, unchangedRunFolder } from '../../src/run/rescore-quick-check.ts';
import { LOCK_FILE, PENDING_FILE, RUN_FILES, TEMPORARY_SUFFIX } from '../../src/run-folder/index.ts';
import { ConfigError } from '../../src/spec/index.ts';
import { runCli } from '../helpers/cli.ts';

// `report --rescore` after an edit of some task files (src/run/partial-rescore.ts):
// only the trials of the files that changed are graded again, and the run
// folder written is byte for byte the one grading every trial writes. Any
// edit the partial re-score cannot vouch for takes the full path, errors included.

const TASKS = 12;
let root: string;
const results = () => path.join(root, 'results');
const tasksDir = () => path.join(root, 'suites', DISTINCT_DOMAIN, 'tasks');
const first = () => path.join(tasksDir(), 'part-001.yaml');
const second = () => path.join(tasksDir(), 'part-002.yaml');
let original: Map<string, string>;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolmark-rescore-partial-'));
  writeDistinctProject(root, { tasks: TASKS });
  // Two task files of six tasks each (the bench's files hold 1,000).
  const [header, ...tasks] = readFileSync(first(), 'utf8')
    .trimEnd()
    .split(/\n(?= {2}- id: )/);
  writeFileSync(first(), `${[header, ...tasks.slice(0, 6)].join('\n')}\n`);
  writeFileSync(second(), `${[header, ...tasks.slice(6)].join('\n')}\n`);
  original = new Map([first(), second()].map((file) => [file, readFileSync(file, 'utf8')]));
  await recordDistinctCassette(root);
  await runProject({ root, out: results(), runId: 'base' });
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  for (const [file, text] of original) writeFileSync(file, text);
});

/** A copy of the base run, to re-score. */
function copyOfRun(name: string): string {
  const runDir = path.join(results(), name);
  rmSync(runDir, { recursive: true, force: true });
  cpSync(path.join(results(), 'base'), runDir, { recursive: true });
  return runDir;
}

/**
 * Every file of a run folder, the re-score's time blanked (`rescored.at` in
 * the manifest and the reports), and the ids Vega numbers per process (clip
 * paths, gradients): both re-scores render their charts in this one process.
 */
function folderBytes(runDir: string): Map<string, string> {
  return new Map(
    readdirSync(runDir).map((name) => [
      name,
      readFileSync(path.join(runDir, name), 'latin1')
        .replace(/"at": ?"[^"]*"/g, '"at":"(time)"')
        .replace(/Re-scored \S+ /g, 'Re-scored (time) ')
        .replace(/\b(clip|gradient_)\d+\b/g, '$1(n)'),
    ]),
  );
}

/** Where two texts part (with some context), or null when they are equal: a short failure message for a 5 MB page. */
function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  let at = 0;
  while (at < a.length && a[at] === b[at]) at += 1;
  return `at ${at}: ${JSON.stringify(a.slice(Math.max(0, at - 80), at + 80))} vs ${JSON.stringify(b.slice(Math.max(0, at - 80), at + 80))}`;
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

describe('re-score of edited task files', { timeout: 180_000 }, () => {
  it('grades again only the edited file’s trials and writes what grading every trial writes', async () => {
    // ask-000001 (first file) expects symbol "S1" and the recorded model sent it: its verdict flips.
    edit(first(), 'args: { symbol: "S1" }', 'args: { symbol: "S99" }');
    const partialDir = copyOfRun('partial');
    const fullDir = copyOfRun('full');
    const partial = await rescoreRun({ runDir: partialDir, root, skipUnchanged: true });
    const full = await rescoreRun({ runDir: fullDir, root });
    expect(partial).toMatchObject({ unchanged: false, trials: TASKS, regraded: 6, changed: 1 });
    expect(full).toMatchObject({ unchanged: false, trials: TASKS, regraded: TASKS, changed: 1 });
    expect(partial.flips).toEqual(new Map([[`${DISTINCT_DOMAIN}/ask-000001`, { nowPass: 0, nowFail: 1 }]]));
    expect(partial.flips).toEqual(full.flips);
    expect(partial.summary).toEqual(full.summary);
    const written = folderBytes(partialDir);
    const reference = folderBytes(fullDir);
    expect([...written.keys()].sort()).toEqual([...reference.keys()].sort());
    for (const [name, bytes] of written) expect(firstDifference(bytes, reference.get(name)!), name).toBeNull();

    // Through the CLI, which starts the chart worker before it loads anything (src/cli/commands/report.ts): the same folder.
    const cliDir = copyOfRun('cli');
    const byCli = await runCli(['report', cliDir, '--rescore', '--root', root], { cwd: root });
    expect(byCli.code, byCli.stderr).toBe(0);
    expect(byCli.stdout).toMatch(
      /^re-scored 12 trials against the tasks in .*: 1 with changed verdicts \(trials.jsonl rewritten\)\n/,
    );
    const fromCli = folderBytes(cliDir);
    for (const [file, bytes] of reference)
      expect(firstDifference(fromCli.get(file)!, bytes), `cli: ${file}`).toBeNull();

    // The partial re-score recorded today's inputs: nothing is left to re-score.
    expect(await rescoreRun({ runDir: partialDir, root, skipUnchanged: true })).toMatchObject({ unchanged: true });
    expect(unchangedRunFolder(partialDir, root)).toBe(partialDir);
  });

  it('an edit that changes no verdict grades that file only and rewrites no trial', async () => {
    writeFileSync(second(), `${original.get(second())!}# reviewed\n`);
    const runDir = copyOfRun('comment');
    const trialsBefore = readFileSync(path.join(runDir, 'trials.jsonl'));
    const result = await rescoreRun({ runDir, root, skipUnchanged: true });
    expect(result).toMatchObject({ unchanged: false, trials: TASKS, regraded: 6, changed: 0 });
    expect(readFileSync(path.join(runDir, 'trials.jsonl'))).toEqual(trialsBefore);
  });

  it('takes the full path when task ids change: a task of the run gone is the same error', async () => {
    edit(first(), 'id: ask-000002', 'id: ask-000002-renamed');
    await expect(rescoreRun({ runDir: copyOfRun('renamed'), root, skipUnchanged: true })).rejects.toThrow(
      /task desk\/ask-000002 of this run is not in the project/,
    );
  });

  it('takes the full path when an edit makes an id collide with another file’s: the load error names both', async () => {
    edit(first(), 'id: ask-000002', 'id: ask-000007');
    const error = await rescoreRun({ runDir: copyOfRun('duplicate'), root, skipUnchanged: true }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/duplicate task id "ask-000007"/);
  });

  it('takes the full path when a file other than a task file changed', async () => {
    const surface = path.join(root, 'suites', DISTINCT_DOMAIN, 'surfaces', `${DISTINCT_SURFACE}.yaml`);
    const text = readFileSync(surface, 'utf8');
    try {
      writeFileSync(surface, `${text}# reviewed\n`);
      edit(first(), 'args: { symbol: "S1" }', 'args: { symbol: "S99" }');
      const result = await rescoreRun({ runDir: copyOfRun('surface'), root, skipUnchanged: true });
      expect(result).toMatchObject({ trials: TASKS, regraded: TASKS, changed: 1 });
    } finally {
      writeFileSync(surface, text);
    }
  });
});

describe('the quick check of `report --rescore`', { timeout: 60_000 }, () => {
  it('names the run folder’s files as the run-folder library does', () => {
    expect(QUICK_CHECK_FILES).toEqual({
      ...RUN_FILES,
      lock: LOCK_FILE,
      journal: PENDING_FILE,
      temporarySuffix: TEMPORARY_SUFFIX,
    });
  });

  it('answers only for a clean, idle folder whose inputs are unchanged', () => {
    const runDir = copyOfRun('quick');
    expect(unchangedRunFolder(runDir, root)).toBe(runDir);
    for (const name of [LOCK_FILE, PENDING_FILE, `summary.json.staged${TEMPORARY_SUFFIX}`]) {
      writeFileSync(path.join(runDir, name), '{}');
      expect(unchangedRunFolder(runDir, root)).toBeNull();
      rmSync(path.join(runDir, name));
    }
    writeFileSync(path.join(runDir, 'summary.json'), '{"torn');
    expect(unchangedRunFolder(runDir, root)).toBeNull();
    // A run id rather than a path: the results folder comes from the config (full path).
    expect(unchangedRunFolder('base', root)).toBeNull();
    edit(second(), 'ask-000007', 'ask-000007b');
    expect(unchangedRunFolder(path.join(results(), 'base'), root)).toBeNull();
  });
});
