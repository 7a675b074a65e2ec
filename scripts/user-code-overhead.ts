/**
 * `npx tsx scripts/user-code-overhead.ts`: what the time limit on user code
 * (run.user_code_limit_ms, docs/reliability.md §11) costs per tool call,
 * against the mechanism it replaced in the design: node:vm's `timeout`,
 * which interrupts a synchronous loop but starts a watchdog thread per call.
 * Printed, not asserted (a timed test would depend on the machine's load).
 */
import vm from 'node:vm';
import { callUserCode } from '../src/registry/index.ts';
import { InFlightTrials } from '../src/solve/index.ts';
import type { PlannedTrial, TrialInput } from '../src/solve/index.ts';

const handler = (input: { n: number }) => ({ id: input.n });
const input = { n: 1 };
const owner = {};

/** Nanoseconds per call of `body`, the best of 5 rounds of `calls` calls (the least disturbed by other load). */
function nanosecondsPerCall(calls: number, body: () => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 5; round += 1) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < calls; index += 1) body();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / calls);
  }
  return best;
}

const bare = nanosecondsPerCall(2_000_000, () => handler(input));
const marked = nanosecondsPerCall(2_000_000, () =>
  callUserCode('the handler of tool note.get', () => handler(input), owner),
);
const script = new vm.Script('call()');
const context = { call: () => handler(input) };
Object.assign(globalThis, context);
const withVm = nanosecondsPerCall(2_000, () => script.runInThisContext({ timeout: 60_000 }));
const flights = new InFlightTrials();
const trialInput = {} as TrialInput;
const planned = {} as PlannedTrial;
const tracked = nanosecondsPerCall(1_000_000, () => {
  flights.add(trialInput, planned);
  flights.delete(trialInput);
});

const row = (what: string, ns: number) => console.log(`${what.padEnd(58)} ${ns.toFixed(0).padStart(8)} ns`);
row('a bare handler call', bare);
row('the same call marked (callUserCode: what, owner)', marked);
row('  overhead of the mark, per call', marked - bare);
row('the same call through vm.Script#runInThisContext({timeout})', withVm);
row('a trial tracked in flight (InFlightTrials add + delete)', tracked);
console.log('the heartbeat: one main-thread timer tick per min(limit / 4, 1 s); nothing per call');
