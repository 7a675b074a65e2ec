/** Aggregation: scored trials → summary groups; compare and gate (SPEC §5, §7). */
export { createAggregator, priceFor } from './aggregator.ts';
export type { Aggregator, AggregatorOptions } from './aggregator.ts';
export { rate } from './group-counters.ts';
export { Reservoir, RESERVOIR_CAPACITY } from './reservoir.ts';
export { compactTrial, collectTrials, pairTrials } from './pairing.ts';
export type { CompactTrial, TrialPair, Pairing } from './pairing.ts';
export { compareMetric, PAIRED_METRICS, ALPHA } from './compare-metric.ts';
export type { PairedMetricDefinition, CompareMetricOptions } from './compare-metric.ts';
export { compareSides, heldoutCheck, MissingSurfaceError } from './compare.ts';
export type { CompareInput, CompareOptions } from './compare.ts';
export { evaluateGate, GateInputError } from './gate.ts';
export type { GateCheck, GateResult } from './gate.ts';
export { resolveRunRef } from './run-ref.ts';
export type { RunRef } from './run-ref.ts';
