/**
 * Binomial coefficients and the Binomial(n, 1/2) distribution, in log space so
 * that large n (thousands of discordant pairs) neither overflows nor underflows
 * before the final answer does.
 */

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * stirlerr(m) = ln(m!) − [(m + ½) ln m − m + ½ ln 2π] for integers 1 ≤ m ≤ 15,
 * computed with mpmath at 40 digits (they agree with the table in R's
 * nmath/stirlerr.c, Loader 2000).
 */
const STIRLING_ERROR_TABLE = [
  0, 0.08106146679532725821967026, 0.04134069595540929409382208, 0.02767792568499833914878929,
  0.02079067210376509311152277, 0.01664469118982119216319487, 0.01387612882307074799874573,
  0.01189670994589177009505572, 0.01041126526197209649747857, 0.009255462182712732917728637,
  0.008330563433362871256469319, 0.007573675487951840794972024, 0.006942840107209529865664153,
  0.006408994188004207068439631, 0.005951370112758847735624416, 0.00555473355196280137103869,
];

/** Error of Stirling's formula for ln(m!), m a positive integer (Loader 2000). */
function stirlingError(m: number): number {
  if (m <= 15) return STIRLING_ERROR_TABLE[m];
  // Asymptotic series 1/(12m) − 1/(360m³) + 1/(1260m⁵) − 1/(1680m⁷) + 1/(1188m⁹);
  // fewer terms suffice as m grows (cut-offs as in R's stirlerr.c).
  const S0 = 1 / 12;
  const S1 = 1 / 360;
  const S2 = 1 / 1260;
  const S3 = 1 / 1680;
  const S4 = 1 / 1188;
  const mm = m * m;
  if (m > 500) return (S0 - S1 / mm) / m;
  if (m > 80) return (S0 - (S1 - S2 / mm) / mm) / m;
  if (m > 35) return (S0 - (S1 - (S2 - S3 / mm) / mm) / mm) / m;
  return (S0 - (S1 - (S2 - (S3 - S4 / mm) / mm) / mm) / mm) / m;
}

function assertCount(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

/**
 * ln C(n, k) for integers 0 ≤ k ≤ n, accurate to a few ulps for any n.
 *
 * Uses Stirling's formula with its exact error term (Loader 2000, "Fast and
 * accurate computation of binomial probabilities"):
 *   ln C(n,k) = k ln(n/k) + (n−k) ln(n/(n−k)) + ½ ln(n / (2π k (n−k)))
 *               + stirlerr(n) − stirlerr(k) − stirlerr(n−k)
 * The first two terms are both non-negative, so nothing cancels, unlike
 * lgamma(n+1) − lgamma(k+1) − lgamma(n−k+1); they are evaluated as
 * log1p((n−k)/k) and log1p(k/(n−k)) so k near 0 or n loses nothing either.
 */
export function logChoose(n: number, k: number): number {
  assertCount(n, 'n');
  assertCount(k, 'k');
  if (k > n) return Number.NEGATIVE_INFINITY;
  if (k === 0 || k === n) return 0;
  const rest = n - k;
  return (
    k * Math.log1p(rest / k) +
    rest * Math.log1p(k / rest) +
    0.5 * Math.log(n / (k * rest)) -
    LOG_SQRT_2PI +
    stirlingError(n) -
    stirlingError(k) -
    stirlingError(rest)
  );
}

/**
 * Deviance term bd0(x, m) = x ln(x/m) + m − x (Loader 2000), by its series in
 * v = (x − m)/(x + m) when x is near m, where the direct form would cancel.
 */
function deviance(x: number, m: number): number {
  if (Math.abs(x - m) < 0.1 * (x + m)) {
    let v = (x - m) / (x + m);
    let sum = (x - m) * v;
    let term = 2 * x * v;
    v *= v;
    for (let j = 1; j < 1000; j++) {
      term *= v;
      const next = sum + term / (2 * j + 1);
      if (next === sum) return next;
      sum = next;
    }
    return sum;
  }
  return x * Math.log(x / m) + m - x;
}

/**
 * ln P(X = k) for X ~ Binomial(n, 1/2), by Loader's saddle-point form
 *   ln f = stirlerr(n) − stirlerr(k) − stirlerr(n−k) − bd0(k, n/2) − bd0(n−k, n/2)
 *          + ½ ln(n / (2π k (n−k)))
 * whose terms stay small, so even for n in the tens of thousands the result
 * keeps nearly full relative precision (ln C(n,k) − n ln 2 would lose ~1e-12).
 */
function logBinomialPmfHalf(k: number, n: number): number {
  if (k === 0 || k === n) return -n * Math.LN2;
  const rest = n - k;
  const half = n / 2;
  return (
    stirlingError(n) -
    stirlingError(k) -
    stirlingError(rest) -
    deviance(k, half) -
    deviance(rest, half) +
    0.5 * Math.log(n / (k * rest)) -
    LOG_SQRT_2PI
  );
}

/** Largest n whose binomial row sums (≤ 2^n) are exact in a double. */
const EXACT_MAX_N = 53;

/**
 * P(X ≤ x) for X ~ Binomial(n, 1/2), n ≤ 53, 0 ≤ x < n, correctly rounded:
 * Pascal's triangle by additions only (every entry and the sum stay below
 * 2^53, so each is exact) and a division by the power of two 2^n.
 */
function exactLowerTailHalf(x: number, n: number): number {
  const row = new Float64Array(n + 1);
  row[0] = 1;
  for (let j = 1; j <= n; j++) {
    for (let i = Math.min(j, x); i > 0; i--) row[i] += row[i - 1];
  }
  let sum = 0;
  for (let i = 0; i <= x; i++) sum += row[i];
  return sum / 2 ** n;
}

/**
 * ln P(X ≤ k) for X ~ Binomial(n, 1/2). Above the median the smaller
 * complement is summed instead.
 *
 * The lower tail is summed from its largest term P(X = k) downwards with the
 * exact ratio P(X = i−1)/P(X = i) = i/(n−i+1), stopping once terms no longer
 * change the sum; only that one term needs logs.
 */
export function logBinomialCdfHalf(k: number, n: number): number {
  assertCount(n, 'n');
  if (Number.isNaN(k)) return Number.NaN;
  const x = Math.floor(k);
  if (x < 0) return Number.NEGATIVE_INFINITY;
  if (x >= n) return 0;
  if (n <= EXACT_MAX_N) return Math.log(exactLowerTailHalf(x, n));
  if (2 * x > n) {
    // P(X ≤ x) = 1 − P(X ≤ n−x−1) by symmetry of Binomial(n, 1/2).
    return Math.log1p(-Math.exp(logBinomialCdfHalf(n - x - 1, n)));
  }
  const logTop = logBinomialPmfHalf(x, n);
  let sum = 1;
  let term = 1;
  for (let i = x; i > 0; i--) {
    term *= i / (n - i + 1);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return logTop + Math.log(sum);
}

/** P(X ≤ k) for X ~ Binomial(n, 1/2). */
export function binomialCdfHalf(k: number, n: number): number {
  assertCount(n, 'n');
  const x = Math.floor(k);
  if (n <= EXACT_MAX_N && x >= 0 && x < n) return exactLowerTailHalf(x, n);
  if (x === 0) return 2 ** -n; // exact (0 below 2^-1074)
  return Math.exp(logBinomialCdfHalf(k, n));
}

/**
 * Exact two-sided p-value of observing x successes in n trials when the true
 * probability is 1/2: min(1, 2 · P(X ≤ min(x, n−x))). For p = 1/2 the
 * doubling and the "sum of outcomes no more likely" definitions coincide,
 * because the distribution is symmetric. n = 0 gives 1.
 */
export function binomialTwoSidedP(x: number, n: number): number {
  assertCount(n, 'n');
  assertCount(x, 'x');
  if (x > n) throw new RangeError(`x must be at most n, got x = ${x}, n = ${n}`);
  if (n === 0) return 1;
  const tail = Math.min(x, n - x);
  if (tail * 2 === n) return 1; // the middle of an even n: P(X ≤ n/2) > 1/2
  if (n <= EXACT_MAX_N) return Math.min(1, 2 * exactLowerTailHalf(tail, n));
  if (tail === 0) return 2 ** (1 - n); // all discordant pairs one way: exact
  return Math.min(1, Math.exp(Math.LN2 + logBinomialCdfHalf(tail, n)));
}
