import type { TaskTrials } from '../stats/pass-at-k.ts';

/**
 * Scored trials and successes per task of one summary group (for pass@k,
 * pass^k and the flip rate), kept as runs in flat arrays rather than a Map
 * of tally objects keyed by `domain + SEP + task`: a 100,000-task run held
 * 400,000 such entries and key strings (four groups each) through its
 * trials, ~30 MB, and looked each trial up four times. A task's trials
 * mostly arrive one after another, so a run grows only when another task
 * comes; `sorted` merges the runs of a task that came back later.
 *
 * The domain and task strings are the record's own (shared with the loaded
 * task), so a run costs four array slots and no new string.
 */
export class TaskTallies {
  readonly #domains: string[] = [];
  readonly #tasks: string[] = [];
  readonly #n: number[] = [];
  readonly #c: number[] = [];

  /** Count one scored trial of `task` in `domain`. */
  add(domain: string, task: string, success: boolean): void {
    const last = this.#tasks.length - 1;
    if (last >= 0 && this.#tasks[last] === task && this.#domains[last] === domain) {
      this.#n[last]! += 1;
      if (success) this.#c[last]! += 1;
      return;
    }
    this.#domains.push(domain);
    this.#tasks.push(task);
    this.#n.push(1);
    this.#c.push(success ? 1 : 0);
  }

  /**
   * One tally per task, in the order of `domain + "\0" + task` (a float sum
   * over tasks depends on its order, and the summary must not depend on
   * which trial finished first).
   */
  sorted(): TaskTrials[] {
    const domains = this.#domains;
    const tasks = this.#tasks;
    const order = Array.from(tasks, (_, index) => index);
    order.sort(keyOrder(domains, tasks));
    const sorted: TaskTrials[] = [];
    let previous = -1;
    for (const index of order) {
      if (previous >= 0 && tasks[index] === tasks[previous] && domains[index] === domains[previous]) {
        const tally = sorted[sorted.length - 1]!;
        tally.n += this.#n[index]!;
        tally.c += this.#c[index]!;
      } else sorted.push({ n: this.#n[index]!, c: this.#c[index]! });
      previous = index;
    }
    return sorted;
  }
}

const SEP = '\u0000';

const compare = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);

/**
 * Comparing (domain, then task) orders as comparing `domain + SEP + task`
 * when no domain name holds SEP: SEP is the smallest code unit, so a domain
 * that is a prefix of another sorts first either way. Otherwise the keys
 * themselves are compared.
 */
function keyOrder(domains: readonly string[], tasks: readonly string[]): (left: number, right: number) => number {
  if (domains.some((domain) => domain.includes(SEP)))
    return (left, right) => compare(domains[left]! + SEP + tasks[left]!, domains[right]! + SEP + tasks[right]!);
  return (left, right) => compare(domains[left]!, domains[right]!) || compare(tasks[left]!, tasks[right]!);
}
