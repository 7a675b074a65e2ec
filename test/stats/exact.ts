/**
 * Exact big-integer arithmetic for checking the floating-point statistics
 * against values computed a completely different way.
 */

/** C(n, k) exactly. */
export function bigChoose(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  const kk = Math.min(k, n - k);
  let value = 1n;
  for (let i = 1; i <= kk; i++) value = (value * BigInt(n - kk + i)) / BigInt(i);
  return value;
}

/** Σ_{i=0}^{k} C(n, i) exactly. */
export function bigLowerTailCount(n: number, k: number): bigint {
  let term = 1n;
  let sum = 1n;
  for (let i = 1; i <= k; i++) {
    term = (term * BigInt(n - i + 1)) / BigInt(i);
    sum += term;
  }
  return sum;
}

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** numerator / denominator as the nearest double (to within an ulp), even far below 1e-300. */
export function bigRatio(numerator: bigint, denominator: bigint): number {
  if (numerator === 0n) return 0;
  const shift = bitLength(denominator) - bitLength(numerator) + 80;
  const scaled = shift >= 0 ? (numerator << BigInt(shift)) / denominator : numerator / (denominator << BigInt(-shift));
  // Scale back in two steps so that 2^-shift itself never underflows.
  const half = Math.floor(shift / 2);
  return Number(scaled) * 2 ** -half * 2 ** -(shift - half);
}

/** ln x for a positive big integer. */
export function bigLog(x: bigint): number {
  const drop = Math.max(0, bitLength(x) - 80);
  return Math.log(Number(x >> BigInt(drop))) + drop * Math.LN2;
}

/** |actual − expected| ≤ tolerance · max(1e-300, |expected|). */
export function relativeError(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.max(1e-300, Math.abs(expected));
}
