// Never zod, nor the spec's index: the cassette worker checks lines with this module (cassette-prefetch.ts).
import type { CassetteLine } from '../../src/spec/cassette.ts';
import { shapeCheckFromSource, type ShapeCheckSource } from '../../src/spec/shape-check.ts';
import { hasOneOutcome } from '../../src/spec/cassette-outcome.ts';
import { checkLineJson, type LineCheck } from './cassette-file.ts';

/** A line the structural check does not take: only the schema can say what it is (or fill in its defaults). */
export class NeedsSchema extends Error {}

/**
 * `checkCassetteLine` (cassette-line.ts) without zod, for the lines it
 * takes without the schema: what `isCassetteLineShape` takes — the
 * structural check `lineShape` (`shapeCheckSource(CassetteLine)`, made
 * where zod is loaded) and `CassetteLine`'s refinement, one of `response`
 * and `error` — and the lines that are not JSON. Any other line throws
 * NeedsSchema: the caller reads again with `checkCassetteLine`.
 */
export function checkWithoutSchema(lineShape: ShapeCheckSource): LineCheck {
  const isShape = shapeCheckFromSource<CassetteLine>(lineShape);
  return (raw, file, lineNumber) =>
    checkLineJson(raw, file, lineNumber, (value) => {
      if (isShape(value) && hasOneOutcome(value)) return { line: value, asWritten: true };
      throw new NeedsSchema();
    });
}
