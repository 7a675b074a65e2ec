/**
 * Test file order for vitest: the files that take longest start first, so
 * that on a machine with few cores the last worker does not start the
 * longest file when everything else is done. vitest orders by the durations
 * of the last run when it has them (node_modules/.vite); a clean clone, as
 * in CI, has none, and then the files named here go first, longest first.
 * The list only orders: a file missing from it still runs.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest files of a full run (vitest's JSON reporter, .ci/run), longest first. */
export const LONG_POLES = [
  'test/consumer/consumer.test.ts',
  'test/reliability/crash-safety.test.ts',
  'test/reliability/run-folder-integrity.test.ts',
];

export class LongPolesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONG_POLES.findIndex((pole) => file.moduleId.endsWith(pole));
      return index === -1 ? LONG_POLES.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's own order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
