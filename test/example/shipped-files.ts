import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { TASK_KINDS, TaskFile, type Split, type TaskSpec } from '../../src/spec/index.ts';

/** The repository root (this file lives in test/example/). */
export const ROOT = join(import.meta.dirname, '..', '..');

export const EXAMPLE_DOMAINS = ['tickets', 'billing'] as const;

/** A shipped task as read straight from its YAML, with where it came from. */
export interface ShippedTask {
  domain: string;
  split: Split;
  file: string;
  task: TaskSpec;
}

/** YAML files directly in a folder (sorted), or none when the folder is missing. */
export function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(dir, name));
}

export function taskDir(domain: string, split: Split): string {
  return split === 'train' ? join(ROOT, 'suites', domain, 'tasks') : join(ROOT, 'heldout', domain, 'tasks');
}

/** Every shipped task, parsed with the zod TaskFile schema (throws on a malformed file). */
export function readShippedTasks(): ShippedTask[] {
  const tasks: ShippedTask[] = [];
  for (const domain of EXAMPLE_DOMAINS) {
    for (const split of ['train', 'heldout'] as const) {
      for (const path of yamlFiles(taskDir(domain, split))) {
        const file = TaskFile.parse(parse(readFileSync(path, 'utf8')));
        for (const task of file.tasks) tasks.push({ domain, split, file: relative(ROOT, path), task });
      }
    }
  }
  return tasks;
}

/** The user's words in a task (system messages set the scene and are shared boilerplate). */
export function userText(task: TaskSpec): string {
  return task.messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join(' ');
}

/** Lower-cased alphanumeric tokens as a set. */
export function tokenSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

/** |A ∩ B| / |A ∪ B|; two empty sets count as identical. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const token of a) if (b.has(token)) shared += 1;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

/** Held-out/train pairs whose user messages are near-duplicates (Jaccard ≥ threshold). */
export function nearDuplicates(tasks: readonly { split: Split; id: string; text: string }[], threshold = 0.6) {
  const train = tasks
    .filter((task) => task.split === 'train')
    .map((task) => ({ id: task.id, tokens: tokenSet(task.text) }));
  const pairs: { heldout: string; train: string; similarity: number }[] = [];
  for (const held of tasks.filter((task) => task.split === 'heldout')) {
    const tokens = tokenSet(held.text);
    for (const candidate of train) {
      const similarity = jaccard(tokens, candidate.tokens);
      if (similarity >= threshold) pairs.push({ heldout: held.id, train: candidate.id, similarity });
    }
  }
  return pairs;
}

/** Count tasks per `split/kind` (and `split/domain/kind`). */
export function countByKind(tasks: readonly { split: Split; kind: string; domain: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const task of tasks) {
    bump(`${task.split}`);
    bump(`${task.split}/${task.kind}`);
    bump(`${task.split}/${task.domain}/${task.kind}`);
  }
  return counts;
}

/** The shipped example's size rules: ≥ 70 train, ≥ 36 held-out, ≥ 8 of each kind per split, every kind in every domain and split. */
export function expectShippedCounts(tasks: readonly { split: Split; kind: string; domain: string }[]): void {
  const counts = countByKind(tasks);
  expect(counts.get('train')).toBeGreaterThanOrEqual(70);
  expect(counts.get('heldout')).toBeGreaterThanOrEqual(36);
  for (const split of ['train', 'heldout']) {
    for (const kind of TASK_KINDS) {
      expect(counts.get(`${split}/${kind}`) ?? 0, `${split}/${kind}`).toBeGreaterThanOrEqual(8);
      for (const domain of ['tickets', 'billing'])
        expect(counts.get(`${split}/${domain}/${kind}`) ?? 0, `${split}/${domain}/${kind}`).toBeGreaterThanOrEqual(1);
    }
  }
}
