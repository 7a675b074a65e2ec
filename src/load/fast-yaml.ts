import { parsePlain } from './plain-yaml.ts';
import { CORE_SCHEMA, EVENT_ID, constructFromEvents, getScalarValue, parseEvents, type Event } from 'js-yaml';

/**
 * The fast first parse of a suite file (issue 20).
 *
 * `yaml` (the `yaml` package) builds a full document tree with a source
 * range on every node, which is what an error message needs to point at a
 * line and column — and it costs ~0.2 ms per task: ~2.2 s of CPU for
 * 10,000 generated tasks, most of a run's loading, plus the garbage of the
 * trees. js-yaml builds the plain values straight from its event stream
 * (no tree), ~3–8× faster on the same files. Both read YAML 1.2 with the
 * core schema (no merge keys, no timestamps), so a file they both accept
 * gives the same values.
 *
 * So every file is parsed here first, and only a file that needs more goes
 * through `yaml`: one js-yaml refuses (a syntax error, a duplicate key,
 * several documents, an empty file), one with aliases (whose expansion
 * limit `yaml` enforces), and any file whose value turns out to have a
 * problem to report (`SourceFile.position` re-parses it with positions).
 * The one position a valid file needs — each task's line — comes from the
 * events' offsets (`itemOffsets`).
 */

export interface FastParse {
  value: unknown;
  /** For each top-level key whose value is a sequence: the source offset of each item. */
  itemOffsets: Map<string, number[]>;
}

/** One node of the event stream: the index of the event after it. */
function skip(events: readonly Event[], index: number): number {
  const event = events[index]!;
  if (event.type !== EVENT_ID.MAPPING && event.type !== EVENT_ID.SEQUENCE) return index + 1;
  let next = index + 1;
  while (events[next]!.type !== EVENT_ID.POP) next = skip(events, next);
  return next + 1;
}

function startOf(event: Event): number {
  if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE) return event.start;
  if (event.type === EVENT_ID.SCALAR) return event.valueStart;
  return event.type === EVENT_ID.ALIAS ? event.anchorStart : 0;
}

/** Offsets of the items of each top-level sequence (`tasks: [...]`), read from the events. */
function topLevelItemOffsets(text: string, events: readonly Event[]): Map<string, number[]> {
  const offsets = new Map<string, number[]>();
  // events[0] opens the document, events[1] is its root node.
  if (events[1]?.type !== EVENT_ID.MAPPING) return offsets;
  let index = 2;
  while (events[index]!.type !== EVENT_ID.POP) {
    const key = events[index]!;
    const valueIndex = skip(events, index);
    const value = events[valueIndex]!;
    if (key.type === EVENT_ID.SCALAR && value.type === EVENT_ID.SEQUENCE) {
      const items: number[] = [];
      for (let item = valueIndex + 1; events[item]!.type !== EVENT_ID.POP; item = skip(events, item))
        items.push(startOf(events[item]!));
      offsets.set(getScalarValue(text, key), items);
    }
    index = skip(events, valueIndex);
  }
  return offsets;
}

/**
 * The plain value of a one-document YAML text without aliases, or null when
 * `yaml` must read it. Generated suites are in a subset of YAML read faster
 * still (src/load/plain-yaml.ts); anything else is js-yaml's.
 */
export function parseFast(text: string): FastParse | null {
  return parsePlain(text) ?? parseWithJsYaml(text);
}

/** `parseFast` for a text the plain reader refused: js-yaml's parse, or null. */
export function parseWithJsYaml(text: string): FastParse | null {
  try {
    const events = parseEvents(text, {});
    // maxAliases 0: a file with aliases is left to `yaml`, which limits their expansion.
    const documents = constructFromEvents(events, { source: text, schema: CORE_SCHEMA, maxAliases: 0 });
    if (documents.length !== 1) return null;
    return { value: documents[0], itemOffsets: topLevelItemOffsets(text, events) };
  } catch {
    return null;
  }
}
