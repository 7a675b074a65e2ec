/**
 * Seeded pseudo-random numbers: xoshiro128** 1.1 (Blackman & Vigna 2018,
 * https://prng.di.unimi.it/xoshiro128starstar.c), its state filled from the
 * seed by splitmix32 (golden-ratio increment + the MurmurHash3 finaliser), the
 * 32-bit analogue of the splitmix64 seeding the xoshiro authors recommend.
 * Deterministic for a seed on every platform: only 32-bit integer arithmetic
 * (Math.imul, >>>).
 */

/** The raw generator: 32-bit unsigned integers from an explicit 4-word state (not all zero). */
export function xoshiro128StarStar(state: readonly [number, number, number, number]): () => number {
  let s0 = state[0] >>> 0;
  let s1 = state[1] >>> 0;
  let s2 = state[2] >>> 0;
  let s3 = state[3] >>> 0;
  if ((s0 | s1 | s2 | s3) === 0) throw new RangeError('xoshiro128** state must not be all zero');
  return () => {
    const result = Math.imul(rotateLeft(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotateLeft(s3, 11);
    return result;
  };
}

function rotateLeft(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** splitmix32: a well-mixed sequence of 32-bit words from any 32-bit seed (used for seeding only). */
function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * A seeded generator of doubles uniform on [0, 1) with 53 random bits each
 * (two 32-bit outputs, as in xoshiro's recommended conversion). The seed is
 * taken as a 32-bit integer (fractional parts and higher bits are dropped).
 */
export function createRandom(seed: number): () => number {
  const words = splitmix32(Math.trunc(seed));
  const state: [number, number, number, number] = [words(), words(), words(), words()];
  // splitmix32 never yields four zero words in a row from one seed, but be sure.
  if ((state[0] | state[1] | state[2] | state[3]) === 0) state[0] = 1;
  const next = xoshiro128StarStar(state);
  return () => {
    const high = next() >>> 5; // 27 bits
    const low = next() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992; // (high·2^26 + low) / 2^53
  };
}
