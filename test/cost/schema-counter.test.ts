import { describe, expect, it } from 'vitest';
import { countSchemaCosts, schemaCost, startSchemaCounter, stopSchemaCounter } from '../../src/cost/schema-cost.ts';

// The counting child process may be started before the payloads are known (a run
// starts it before loading the project): it must count exactly what the
// in-process tokenizer counts, whether it was started early, stopped unused,
// or not started at all.

const payload = (name: string) => [
  { type: 'function', function: { name, description: `Tool ${name}.`, parameters: {} } },
];

describe('schema token counter', { timeout: 60_000 }, () => {
  it('counts in a child process started ahead, in a fresh one after a stop, and agrees with the in-process count', async () => {
    startSchemaCounter();
    const early = await countSchemaCosts([payload('early_one'), payload('early_two')]);
    startSchemaCounter();
    stopSchemaCounter();
    const fresh = await countSchemaCosts([payload('fresh_one')]);
    const inProcess = [payload('early_one'), payload('early_two'), payload('fresh_one')].map(schemaCost);
    expect([...early, ...fresh]).toEqual(inProcess);
    expect(early[0]!.bytes).toBe(Buffer.byteLength(JSON.stringify(payload('early_one'))));
    expect(early[0]!.tokens).toBeGreaterThan(5);
  });
});
