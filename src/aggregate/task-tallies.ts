import type { TaskTrials } from '../stats/pass-at-k.ts';

/**
 * Scored trials and successes per task (for pass@k, pass^k and the flip
 * rate), kept as runs in flat arrays rather than a Map of tally objects
 * keyed by `domain + SEP + task`: a 100,000-task run held 400,000 such
 * entries and key strings (four groups each) through its trials, ~30 MB,
 * and looked each trial up four times. A task's trials mostly arrive one
 * after another, so a run grows only when another task comes; `sorted`
 * merges the runs of a task that came back later.
 *
 * One per aggregator cell, not per summary group (src/aggregate/aggregator.ts):
 * the four groups a cell counts into see the same trials of its tasks, and
 * a task counts in one cell only, so a group's tallies are its cells' (`sortedOf`).
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
    return sortedRuns(this.#domains, this.#tasks, this.#n, this.#c);
  }

  /** `sorted` of the trials of several tallies together (a task in more than one of them counts once, summed). */
  static sortedOf(tallies: readonly TaskTallies[]): TaskTrials[] {
    if (tallies.length === 1) return tallies[0]!.sorted();
    return sortedRuns(
      tallies.flatMap((tally) => tally.#domains),
      tallies.flatMap((tally) => tally.#tasks),
      tallies.flatMap((tally) => tally.#n),
      tallies.flatMap((tally) => tally.#c),
    );
  }
}

function sortedRuns(
  domains: readonly string[],
  tasks: readonly string[],
  n: readonly number[],
  c: readonly number[],
): TaskTrials[] {
  const order = Array.from(tasks, (_, index) => index);
  order.sort(keyOrder(domains, tasks));
  const sorted: TaskTrials[] = [];
  let previous = -1;
  for (const index of order) {
    if (previous >= 0 && tasks[index] === tasks[previous] && domains[index] === domains[previous]) {
      const tally = sorted[sorted.length - 1]!;
      tally.n += n[index]!;
      tally.c += c[index]!;
    } else sorted.push({ n: n[index]!, c: c[index]! });
    previous = index;
  }
  return sorted;
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
