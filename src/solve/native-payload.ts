import { namespaceOf, searchNamespaces } from '../spec/index.ts';
import type { NativeSearch, NativeToolSearchOption, SurfaceLoading, ToolDefinition } from '../spec/index.ts';

/**
 * Deferred loading sent natively (issue 19): the search option a request
 * carries for its provider's tool search, and what the model has in its
 * context before any search, which is what toolmark counts as the initial
 * schema of a native trial.
 */

/** The native search option of a deferred surface for one provider's tool search. */
export function nativeSearchOption(
  payload: readonly ToolDefinition[],
  loading: SurfaceLoading,
  kind: NativeSearch,
): NativeToolSearchOption {
  if (kind === 'anthropic') return { anthropic: loading.anthropic };
  if ((loading.openai ?? 'namespaces') === 'namespaces') {
    const namespaces = searchNamespaces(
      payload.map((definition) => definition.name),
      loading.namespaces,
    );
    if (namespaces.length > 0) return { openai: 'namespaces', namespaces };
  }
  return { openai: 'functions' };
}

/** A tool as the model sees it before it is loaded: its name and description, no parameters. */
export interface ToolStub {
  name: string;
  description: string;
}

/** The up-front view of a native request, in payload order, and which deferred tools show a stub in it. */
export interface NativeInitialView {
  view: (ToolDefinition | ToolStub)[];
  stubbed: ReadonlySet<string>;
}

/**
 * What the model sees before it searches, per the providers' documentation:
 * the always-loaded tools in full, and of the deferred ones — Anthropic:
 * nothing; OpenAI: each flat deferred function's name and description (its
 * parameters are what is deferred), and each namespace's name and
 * description once. The provider's own search tool is a built-in whose
 * prompt is not in the payload, so it is not counted.
 */
export function nativeInitialView(
  payload: readonly ToolDefinition[],
  always: ReadonlySet<string>,
  option: NativeToolSearchOption,
): NativeInitialView {
  const view: (ToolDefinition | ToolStub)[] = [];
  const stubbed = new Set<string>();
  const shown = new Set<string>();
  const namespaces = option.namespaces ?? [];
  for (const definition of payload) {
    const grouped = namespaceOf(definition.name, namespaces);
    if (grouped && !shown.has(grouped.namespace)) {
      shown.add(grouped.namespace);
      const namespace = namespaces.find((candidate) => candidate.name === grouped.namespace)!;
      view.push({ name: namespace.name, description: namespace.description });
    }
    if (always.has(definition.name)) view.push(definition);
    else if (option.openai && !grouped) {
      view.push({ name: definition.name, description: definition.description });
      stubbed.add(definition.name);
    }
  }
  return { view, stubbed };
}
