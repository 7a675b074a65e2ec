import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readGitHead } from '../../src/run/git-head.ts';
import { gitCommitSoon } from '../../src/run/manifest.ts';

// Without the caller's GIT_* variables (a test runner inside a hook may set GIT_DIR).
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
/** What `git rev-parse HEAD` prints in `cwd`, or null when it fails (as the manifest records it). */
const gitSays = (cwd: string): string | null => {
  try {
    return git(cwd, 'rev-parse', 'HEAD') || null;
  } catch {
    return null;
  }
};

const scratch = mkdtempSync(path.join(tmpdir(), 'toolmark-git-head-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function repository(name: string): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'a.txt'), 'a');
  git(dir, 'add', 'a.txt');
  git(dir, 'commit', '-q', '-m', 'one');
  return dir;
}

const hasGit = (() => {
  try {
    return git(scratch, '--version') !== '';
  } catch {
    return false;
  }
})();

describe.skipIf(!hasGit)('readGitHead: the commit git rev-parse HEAD prints', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });
  process.env = env;

  it('reads a branch from its loose ref, and from a subfolder', () => {
    const dir = repository('loose');
    mkdirSync(path.join(dir, 'sub'));
    expect(readGitHead(dir)).toBe(gitSays(dir));
    expect(readGitHead(path.join(dir, 'sub'))).toBe(gitSays(dir));
  });

  it('reads a branch from packed-refs', () => {
    const dir = repository('packed');
    git(dir, 'pack-refs', '--all');
    expect(readGitHead(dir)).toMatch(/^[0-9a-f]{40}$/);
    expect(readGitHead(dir)).toBe(gitSays(dir));
  });

  it('reads a detached HEAD', () => {
    const dir = repository('detached');
    git(dir, 'checkout', '-q', '--detach');
    expect(readGitHead(dir)).toBe(gitSays(dir));
  });

  it('reads a linked worktree through its .git file and commondir', () => {
    const dir = repository('main-tree');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'two');
    git(dir, 'worktree', 'add', '-q', '-b', 'other', path.join(scratch, 'linked'), 'HEAD~1');
    const linked = path.join(scratch, 'linked');
    expect(readGitHead(linked)).toBe(gitSays(linked));
    expect(readGitHead(linked)).not.toBe(gitSays(dir));
  });

  it('leaves an unborn branch to git, which finds no commit', async () => {
    const dir = path.join(scratch, 'unborn');
    mkdirSync(dir);
    git(dir, 'init', '-q');
    expect(readGitHead(dir)).toBeUndefined();
    expect(await gitCommitSoon(dir)).toBe(gitSays(dir));
  });

  it('leaves the repository to git when GIT_DIR is set', async () => {
    const dir = repository('variable');
    process.env.GIT_DIR = path.join(dir, '.git');
    try {
      expect(readGitHead(scratch)).toBeUndefined();
      expect(await gitCommitSoon(scratch)).toBe(gitSays(dir));
    } finally {
      delete process.env.GIT_DIR;
    }
  });

  it('says null outside any repository, as git does', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'toolmark-no-git-'));
    try {
      if (gitSays(outside) !== null) return; // the temp folder is inside a checkout here
      expect(await gitCommitSoon(outside)).toBeNull();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
