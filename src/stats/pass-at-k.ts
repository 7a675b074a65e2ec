/** Trials of one task: n scored trials, c of them successful. */
export interface TaskTrials {
  n: number;
  c: number;
}

function assertTrials(n: number, c: number, k: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
  if (!Number.isInteger(c) || c < 0 || c > n)
    throw new RangeError(`c must be an integer within [0, n], got ${c} of ${n}`);
  if (!Number.isInteger(k) || k < 1 || k > n)
    throw new RangeError(`k must be an integer within [1, n], got ${k} with n = ${n}`);
}

/**
 * Unbiased pass@k of one task (Chen et al. 2021, "Evaluating Large Language
 * Models Trained on Code", eq. 1): the probability that at least one of k
 * trials drawn without replacement from the n run succeeds,
 *   pass@k = 1 − C(n−c, k) / C(n, k),
 * computed as 1 − ∏_{i=n−c+1}^{n} (1 − k/i), the paper's numerically stable
 * form (no factorials). Requires 1 ≤ k ≤ n.
 */
export function passAtK(n: number, c: number, k: number): number {
  assertTrials(n, c, k);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * Unbiased pass^k of one task (Yao et al. 2024, τ-bench): the probability
 * that all of k trials drawn without replacement from the n run succeed,
 *   pass^k = C(c, k) / C(n, k) = ∏_{i=0}^{k−1} (c − i) / (n − i).
 * It measures reliability: how often the model gets the task right every time.
 * Requires 1 ≤ k ≤ n.
 */
export function passHatK(n: number, c: number, k: number): number {
  assertTrials(n, c, k);
  if (c < k) return 0;
  let allPass = 1;
  for (let i = 0; i < k; i++) allPass *= (c - i) / (n - i);
  return allPass;
}

/**
 * pass@k of one task for every k = 1..maxK (maxK ≤ n): `[passAtK(n, c, 1), …]`.
 * Each k is its own product (k sits inside every factor), so this is the
 * per-k function in a loop; it exists to pair with passHatKSeries.
 */
export function passAtKSeries(n: number, c: number, maxK: number): number[] {
  const values: number[] = [];
  for (let k = 1; k <= maxK; k++) values.push(passAtK(n, c, k));
  return values;
}

/**
 * pass^k of one task for every k = 1..maxK (maxK ≤ n) in O(maxK): the
 * product for k is the product for k − 1 times (c − k + 1) / (n − k + 1),
 * the very factors passHatK multiplies in the same order, so each value
 * equals passHatK(n, c, k) exactly. (Per k, pass^k is O(k): a group's
 * series over k = 1..n was O(n²) per task.)
 */
export function passHatKSeries(n: number, c: number, maxK: number): number[] {
  if (maxK === 0) return [];
  assertTrials(n, c, maxK);
  const values: number[] = [];
  let allPass = 1;
  for (let k = 1; k <= maxK; k++) {
    allPass *= (c - (k - 1)) / (n - (k - 1));
    values.push(c < k ? 0 : allPass);
  }
  return values;
}

/**
 * Mean of a per-task estimator (passAtK or passHatK) over tasks, as both
 * papers report it. Tasks with fewer than k scored trials (e.g. some trials
 * errored) have no unbiased estimate and are left out; NaN if none is left.
 */
export function meanOverTasks(
  tasks: readonly TaskTrials[],
  k: number,
  estimator: (n: number, c: number, k: number) => number,
): number {
  let sum = 0;
  let counted = 0;
  for (const task of tasks) {
    if (task.n < k) continue;
    sum += estimator(task.n, task.c, k);
    counted++;
  }
  return counted === 0 ? Number.NaN : sum / counted;
}

/**
 * meanOverTasks for every k = 1..maxK at once, from a per-task series
 * (passAtKSeries or passHatKSeries): element k − 1 equals
 * `meanOverTasks(tasks, k, estimator)` exactly — the same terms summed in
 * the same task order, tasks with fewer than k trials left out.
 */
export function meanOverTasksSeries(
  tasks: readonly TaskTrials[],
  maxK: number,
  series: (n: number, c: number, maxK: number) => number[],
): number[] {
  const sums = new Array<number>(maxK).fill(0);
  const counted = new Array<number>(maxK).fill(0);
  for (const task of tasks) {
    const values = series(task.n, task.c, Math.min(maxK, task.n));
    for (let index = 0; index < values.length; index++) {
      sums[index]! += values[index]!;
      counted[index]! += 1;
    }
  }
  return sums.map((sum, index) => (counted[index] === 0 ? Number.NaN : sum / counted[index]!));
}

/**
 * Tasks whose trials disagree (0 < c < n) among the tasks that could disagree
 * (n ≥ 2). A flip is run-to-run noise of the model on one input; its share
 * bounds how much any single-trial comparison can be trusted.
 */
export function countFlips(tasks: readonly TaskTrials[]): { flipped: number; tasks: number } {
  let flipped = 0;
  let eligible = 0;
  for (const task of tasks) {
    if (task.n < 2) continue;
    eligible++;
    if (task.c > 0 && task.c < task.n) flipped++;
  }
  return { flipped, tasks: eligible };
}

/** Share of tasks with 0 < c < n, among tasks with n ≥ 2 (see countFlips); NaN if there are none. */
export function flipRate(tasks: readonly TaskTrials[]): number {
  const { flipped, tasks: eligible } = countFlips(tasks);
  return eligible === 0 ? Number.NaN : flipped / eligible;
}
