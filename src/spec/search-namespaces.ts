import type { SearchNamespace } from './surface-loading.ts';

/** A name OpenAI accepts for a namespace (the function-name rule). */
const NAMESPACE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The OpenAI namespaces a deferred surface's tools form (issue 19): a tool
 * whose exposed name is dotted (`billing.invoice.get`) goes into the
 * namespace named by its first segment (`billing`), as `invoice.get`. A
 * first segment that is no legal namespace name, or that is also the name
 * of an undotted tool of the surface, forms no namespace (its tools stay
 * flat functions). Namespaces come in the order their first tool appears
 * in the payload. A namespace's description is the surface's
 * (`search.namespaces`), else a list of what it holds.
 */
export function searchNamespaces(
  names: readonly string[],
  descriptions: Readonly<Record<string, string>> = {},
): SearchNamespace[] {
  const flat = new Set(names.filter((name) => !name.includes('.')));
  const members = new Map<string, string[]>();
  for (const name of names) {
    const dot = name.indexOf('.');
    if (dot < 0) continue;
    const namespace = name.slice(0, dot);
    if (!NAMESPACE_NAME.test(namespace) || flat.has(namespace)) continue;
    members.set(namespace, [...(members.get(namespace) ?? []), name.slice(dot + 1)]);
  }
  return [...members].map(([name, inner]) => ({
    name,
    description: descriptions[name] ?? `${name} tools: ${inner.join(', ')}`,
  }));
}

/** The namespace a tool belongs to in a request's grouping, and its name inside it; null when it stays flat. */
export function namespaceOf(
  name: string,
  namespaces: readonly SearchNamespace[],
): { namespace: string; inner: string } | null {
  const dot = name.indexOf('.');
  if (dot < 0) return null;
  const namespace = name.slice(0, dot);
  return namespaces.some((candidate) => candidate.name === namespace)
    ? { namespace, inner: name.slice(dot + 1) }
    : null;
}
