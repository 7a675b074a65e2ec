import type { Perturbation, SurfaceFile, SurfaceToolEntry, Visibility } from '../spec/index.ts';
import type { FieldPath, SourceFile } from './source-file.ts';

/** Where an entry (or a surface field) was last written, for locating issues. */
export interface Origin {
  source: SourceFile;
  path: FieldPath;
}

/** A tool entry after merging, remembering which file wrote it last. */
export interface MergedEntry {
  entry: SurfaceToolEntry;
  origin: Origin;
}

/** A surface after `extends` is applied, before tools are resolved against the domain. */
export interface MergedSurface {
  id: string;
  extends: string | null;
  description: string;
  strict: boolean;
  system: string | null;
  /** Inherited like `strict`. */
  visibility: Visibility;
  /** This file's own `perturb:` only: a perturbation is never inherited. */
  perturb: Perturbation | null;
  entries: MergedEntry[];
  /** Deferred-loading fields after inheritance (surface-loading.ts). */
  loading: MergedLoading;
  /** The file that defines this surface. */
  source: SourceFile;
}

/** `loading`, `always_loaded` and `search`, each inherited from the parent unless the file gives it. */
export interface MergedLoading {
  mode: 'eager' | 'deferred';
  always_loaded: { ids: string[]; origin: SourceFile } | null;
  top_k: number | null;
  anthropic: 'bm25' | 'regex' | null;
  openai: 'namespaces' | 'functions' | null;
  /** Namespace descriptions, with the file that gave them (its lines name a bad key). */
  namespaces: { descriptions: Record<string, string>; origin: SourceFile } | null;
  /** Which of the fields this surface's own file gives (an eager surface may not give them). */
  own: { always_loaded: boolean; search: boolean };
}

function mergeLoading(parent: MergedLoading | undefined, file: SurfaceFile, source: SourceFile): MergedLoading {
  return {
    mode: file.loading ?? parent?.mode ?? 'eager',
    always_loaded: file.always_loaded ? { ids: file.always_loaded, origin: source } : (parent?.always_loaded ?? null),
    top_k: file.search?.top_k ?? parent?.top_k ?? null,
    anthropic: file.search?.anthropic ?? parent?.anthropic ?? null,
    openai: file.search?.openai ?? parent?.openai ?? null,
    namespaces: file.search?.namespaces
      ? { descriptions: file.search.namespaces, origin: source }
      : (parent?.namespaces ?? null),
    own: { always_loaded: file.always_loaded !== undefined, search: file.search !== undefined },
  };
}

/** What a revision entry is matched by: its action, or for a multiplexed tool its registry tool. */
export function entryKey(entry: SurfaceToolEntry): string | undefined {
  return entry.action ?? entry.tool;
}

function sameTarget(parent: SurfaceToolEntry, child: SurfaceToolEntry): boolean {
  if (child.action !== undefined) return parent.action === child.action;
  if (child.tool !== undefined) return parent.tool === child.tool && parent.action === undefined;
  return false;
}

/** Apply a file's `order:` (by action or tool id); unlisted entries keep their relative order after the listed ones. */
export function applyOrder(entries: MergedEntry[], order: readonly string[]): MergedEntry[] {
  const rank = new Map(order.map((key, index) => [key, index]));
  return entries
    .map((item, index) => ({ item, index, rank: rank.get(entryKey(item.entry) ?? '') ?? order.length }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ item }) => item);
}

/**
 * Merge a revision onto its (already merged) parent (SPEC §3): entries are
 * matched by `action` (or `tool`); given fields replace the parent's, except
 * `parameters`, which merge per parameter so a revision states only what it
 * changes; `remove: true` drops the tool; unmatched entries are appended.
 * Returns the merged list plus the indices of `remove` entries that matched nothing.
 */
export function mergeEntries(
  parent: readonly MergedEntry[],
  child: SurfaceFile,
  source: SourceFile,
): { entries: MergedEntry[]; unmatchedRemovals: number[] } {
  const entries = [...parent];
  const unmatchedRemovals: number[] = [];
  child.tools.forEach((entry, index) => {
    const origin: Origin = { source, path: ['tools', index] };
    const at = entries.findIndex((candidate) => sameTarget(candidate.entry, entry));
    if (at < 0) {
      if (entry.remove) unmatchedRemovals.push(index);
      else entries.push({ entry, origin });
      return;
    }
    if (entry.remove) {
      entries.splice(at, 1);
      return;
    }
    const base = entries[at]!.entry;
    const merged: SurfaceToolEntry = { ...base };
    for (const [field, value] of Object.entries(entry) as [keyof SurfaceToolEntry, unknown][]) {
      if (value !== undefined) (merged as Record<string, unknown>)[field] = value;
    }
    if (base.parameters && entry.parameters) merged.parameters = { ...base.parameters, ...entry.parameters };
    entries[at] = { entry: merged, origin };
  });
  return { entries, unmatchedRemovals };
}

/** Merge a whole surface file onto its parent (or onto nothing). */
export function mergeSurface(
  parent: MergedSurface | null,
  file: SurfaceFile,
  source: SourceFile,
): { surface: MergedSurface; unmatchedRemovals: number[] } {
  const { entries, unmatchedRemovals } = mergeEntries(parent?.entries ?? [], file, source);
  return {
    surface: {
      id: file.id,
      extends: file.extends ?? null,
      description: file.description ?? parent?.description ?? '',
      strict: file.strict ?? parent?.strict ?? false,
      system: file.system ?? parent?.system ?? null,
      visibility: file.visibility ?? parent?.visibility ?? 'all',
      perturb: file.perturb ?? null,
      entries: file.order ? applyOrder(entries, file.order) : entries,
      loading: mergeLoading(parent?.loading, file, source),
      source,
    },
    unmatchedRemovals,
  };
}
