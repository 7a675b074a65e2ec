/**
 * Statistics for toolmark: numbers in, numbers out. Imports nothing else of
 * the project (SPEC §9). Formulas and sources: docs/statistics.md.
 */
export { wilsonInterval, Z_95 } from './wilson.ts';
export { mcnemarExact } from './mcnemar.ts';
export { binomialTwoSidedP, binomialCdfHalf, logBinomialCdfHalf, logChoose } from './binomial.ts';
export { pairedBootstrap, bootstrapDistribution } from './bootstrap.ts';
export type { BootstrapOptions, BootstrapInterval } from './bootstrap.ts';
export { passAtK, passHatK, meanOverTasks, flipRate, countFlips } from './pass-at-k.ts';
export type { TaskTrials } from './pass-at-k.ts';
export { minimumDetectableEffect, connorSampleSize } from './mde.ts';
export type { MinimumDetectableEffectOptions } from './mde.ts';
export { createRandom, xoshiro128StarStar } from './random.ts';
export { quantile } from './quantile.ts';
export { normalQuantile } from './normal.ts';
export { pairsToDetect, moreTasksToDetect } from './sample-size.ts';
export type { PairedCounts } from './sample-size.ts';
