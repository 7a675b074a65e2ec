import { DEFAULT_SEARCH_TOP_K, SEARCH_TOOL_NAME, closest, searchNamespaces } from '../spec/index.ts';
import type { ConfigIssue, ExposedTool, SurfaceLoading } from '../spec/index.ts';
import { entryKey, type MergedEntry, type MergedSurface } from './surface-merge.ts';

/**
 * Resolve a merged surface's deferred-loading fields against its tools
 * (issue 19): `always_loaded` names action or tool ids of this surface, a
 * deferred surface has something to defer and no tool named like the search
 * meta-tool. Returns null for an eager surface; `undefined` when an issue
 * was reported.
 */
export function resolveLoading(
  merged: MergedSurface,
  tools: readonly ExposedTool[],
  items: readonly MergedEntry[],
  issues: ConfigIssue[],
): SurfaceLoading | null | undefined {
  const { loading, source } = merged;
  const before = issues.length;
  if (loading.mode === 'eager') {
    // Only this file's own fields are wrong here: a revision may turn an inherited deferred surface eager.
    for (const field of ['always_loaded', 'search'] as const) {
      if (loading.own[field])
        issues.push(
          source.issue([field], {
            message: `\`${field}\` applies only to a deferred surface`,
            expected: 'loading: deferred on this surface or its parent',
          }),
        );
    }
    return issues.length > before ? undefined : null;
  }
  const nameByKey = new Map<string, string>();
  items.forEach((item, index) => {
    const key = entryKey(item.entry);
    if (key !== undefined && tools[index]) nameByKey.set(key, tools[index]!.name);
  });
  const always: string[] = [];
  const origin = loading.always_loaded?.origin ?? source;
  loading.always_loaded?.ids.forEach((id, index) => {
    const name = nameByKey.get(id);
    if (name === undefined) {
      issues.push(
        origin.issue(['always_loaded', index], {
          message: `always_loaded names "${id}", which is not a tool of surface ${merged.id}`,
          expected: `an action or tool id of the surface: ${[...nameByKey.keys()].join(', ')}`,
          suggestion: closest(id, [...nameByKey.keys()]),
        }),
      );
    } else if (!always.includes(name)) always.push(name);
  });
  const clash = tools.find((tool) => tool.name === SEARCH_TOOL_NAME);
  if (clash) {
    issues.push(
      source.issue(['loading'], {
        message: `a deferred surface may not expose a tool named "${SEARCH_TOOL_NAME}" (the search meta-tool's name)`,
        expected: 'another exposed name for that tool',
      }),
    );
  }
  if (issues.length === before && always.length >= tools.length) {
    issues.push(
      source.issue(['always_loaded'], {
        message: `every tool of surface ${merged.id} is always loaded, so nothing is deferred`,
        expected: 'at least one tool left out of always_loaded, or loading: eager',
      }),
    );
  }
  checkNamespaces(merged, tools, issues);
  if (issues.length > before) return undefined;
  return {
    mode: 'deferred',
    always_loaded: always,
    top_k: loading.top_k ?? DEFAULT_SEARCH_TOP_K,
    anthropic: loading.anthropic ?? 'bm25',
    // Only when given: a surface that says nothing keeps the hash it had before these options existed.
    ...(loading.openai ? { openai: loading.openai } : {}),
    ...(loading.namespaces ? { namespaces: loading.namespaces.descriptions } : {}),
  };
}

/** `search.namespaces` names namespaces the surface's tools form, and only when they are grouped into namespaces. */
function checkNamespaces(merged: MergedSurface, tools: readonly ExposedTool[], issues: ConfigIssue[]): void {
  const given = merged.loading.namespaces;
  if (!given) return;
  if (merged.loading.openai === 'functions') {
    issues.push(
      given.origin.issue(['search', 'namespaces'], {
        message: '`search.namespaces` describes OpenAI namespaces, but `search.openai: functions` sends no namespace',
        expected: '`search.openai: namespaces` (the default), or no `search.namespaces`',
      }),
    );
    return;
  }
  const formed = searchNamespaces(tools.map((tool) => tool.name)).map((namespace) => namespace.name);
  for (const name of Object.keys(given.descriptions)) {
    if (formed.includes(name)) continue;
    issues.push(
      given.origin.issue(['search', 'namespaces', name], {
        message: `namespace "${name}" is not formed by any tool of surface ${merged.id}`,
        expected:
          formed.length > 0
            ? `one of the namespaces of its dotted names: ${formed.join(', ')}`
            : 'dotted tool names (e.g. billing.invoice.get forms namespace billing); this surface has none',
        suggestion: closest(name, formed),
      }),
    );
  }
}
