import type { ResolvedSurface, ToolDefinition } from '../../src/spec/index.ts';

/** A call as the synthetic model writes it: an exposed name and its argument object. */
export interface EncodedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * Word stems that, in a tool's exposed name, say which of two near-synonyms
 * it is: the archive or slow read vs the plain one, the preview or draft vs
 * the write. Matched against the words (split on `_`, `.`, `-`) in which two
 * names differ; see `SURFACE_EFFECTS.tellingNames`.
 */
export const NAME_CUES: readonly string[] = ['archiv', 'slow', 'preview', 'draft', 'submit', 'record'];

const nameWords = (name: string) =>
  name
    .toLowerCase()
    .split(/[._-]+/)
    .filter(Boolean);

/**
 * Do two exposed names tell the tools apart by their words? Dotted
 * namespaced ids that share everything but the last segment read as opaque
 * ids and never do (`billing.refund.preview` vs `billing.refund.submit`).
 */
export function namesTell(a: string, b: string): boolean {
  if (a === b) return false;
  const segments = [a.split('.'), b.split('.')];
  if (
    segments.every((parts) => parts.length > 1) &&
    segments[0]!.slice(0, -1).join('.') === segments[1]!.slice(0, -1).join('.')
  )
    return false;
  const [wordsA, wordsB] = [new Set(nameWords(a)), new Set(nameWords(b))];
  const differing = [
    ...[...wordsA].filter((word) => !wordsB.has(word)),
    ...[...wordsB].filter((word) => !wordsA.has(word)),
  ];
  return differing.some((word) => NAME_CUES.some((cue) => word.startsWith(cue)));
}

/**
 * What a synthetic model can tell from the tools it is sent: which exposed
 * tool carries which action, whether the surface is one wide multiplexed
 * tool, whether descriptions tell near-synonyms apart, and whether their
 * names do. Names and descriptions are read from the request's tools payload
 * (what a model sees); the surface's routing table only supplies the
 * action ↔ name mapping a model would infer from names.
 */
export class SurfaceTraits {
  readonly wide: boolean;
  /** A revision that shortened its parent's descriptions (see SURFACE_EFFECTS.tunedRevision). */
  readonly tunedRevision: boolean;
  readonly #byAction = new Map<
    string,
    { name: string; selector: { field: string; value: string; argumentsField: string | null } | null }
  >();
  readonly #descriptions = new Map<string, string>();
  /** Payload tools no exposed tool routes (a perturbed surface's distractors), in payload order. */
  readonly distractors: readonly string[];

  constructor(surface: ResolvedSurface, tools: readonly ToolDefinition[], parent: ResolvedSurface | null) {
    for (const tool of tools) this.#descriptions.set(tool.name, tool.description);
    for (const exposed of surface.tools) {
      if (exposed.mapping.kind === 'identity') {
        this.#byAction.set(exposed.mapping.action, { name: exposed.name, selector: null });
      } else {
        for (const [value, action] of Object.entries(exposed.mapping.map)) {
          if (!this.#byAction.has(action)) {
            this.#byAction.set(action, {
              name: exposed.name,
              selector: { field: exposed.mapping.field, value, argumentsField: exposed.mapping.arguments },
            });
          }
        }
      }
    }
    this.wide = surface.tools.some((tool) => tool.mapping.kind === 'multiplexed');
    const routed = new Set(surface.tools.map((tool) => tool.name));
    this.distractors = tools.map((tool) => tool.name).filter((name) => !routed.has(name));
    const length = (payload: readonly ToolDefinition[]) =>
      payload.reduce((sum, tool) => sum + tool.description.length, 0);
    this.tunedRevision = parent !== null && length(tools) < length(parent.payload);
  }

  has(action: string): boolean {
    return this.#byAction.has(action);
  }

  /** Does either tool's description name the other, saying when to use which? Never on a wide tool. */
  disambiguates(action: string, other: string): boolean {
    const a = this.#byAction.get(action);
    const b = this.#byAction.get(other);
    if (!a || !b || a.selector || b.selector || a.name === b.name) return false;
    return (
      (this.#descriptions.get(a.name) ?? '').includes(b.name) || (this.#descriptions.get(b.name) ?? '').includes(a.name)
    );
  }

  /** Do the exposed names of the two actions' tools differ by a telling word (NAME_CUES)? Never on a wide tool. */
  namesDistinguish(action: string, other: string): boolean {
    const a = this.#byAction.get(action);
    const b = this.#byAction.get(other);
    if (!a || !b || a.selector || b.selector) return false;
    return namesTell(a.name, b.name);
  }

  /**
   * The call for an action with its own arguments. On a wide tool the
   * arguments go under the payload field, unless `flat` (a common mistake),
   * and `operation` may be overridden with a wrong name.
   */
  encode(
    action: string,
    args: Record<string, unknown>,
    options: { flat?: boolean; operation?: string } = {},
  ): EncodedCall | null {
    const entry = this.#byAction.get(action);
    if (!entry) return null;
    if (!entry.selector) return { name: entry.name, arguments: args };
    const { field, value, argumentsField } = entry.selector;
    const operation = options.operation ?? value;
    if (argumentsField === null || options.flat)
      return { name: entry.name, arguments: { [field]: operation, ...args } };
    return { name: entry.name, arguments: { [field]: operation, [argumentsField]: args } };
  }
}
