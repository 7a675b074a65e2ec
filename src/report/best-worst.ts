import type { Manifest, Rate, Summary, SummaryGroup } from '../spec/index.ts';

/** The best and worst surface of one provider/model in one domain, by task success. */
export interface BestWorst {
  provider: string;
  domain: string;
  /** Which split the rates are of: `all` when the summary has it, else train. */
  split: string;
  surfaces: number;
  best: { surface: string; rate: Rate };
  worst: { surface: string; rate: Rate };
}

/**
 * The run's headline without pooling: a run mixes providers and surfaces
 * (a deliberately bad baseline among them), so one success rate over all of
 * them describes nothing. Instead, per provider/model × domain, the best
 * and the worst surface by task success (all kinds, both splits).
 */
export function bestAndWorst(summary: Summary, manifest: Manifest): BestWorst[] {
  const domainOf = new Map(manifest.surfaces.map((surface) => [surface.id, surface.domain]));
  const chosen = (group: SummaryGroup) => group.kind === 'all';
  const hasAll = summary.groups.some((group) => chosen(group) && group.split === 'all');
  const split = hasAll ? 'all' : 'train';
  const cells = new Map<string, SummaryGroup[]>();
  for (const group of summary.groups) {
    if (!chosen(group) || group.split !== split || group.task_success.value === null) continue;
    const key = `${group.provider}:${group.model}\u0000${domainOf.get(group.surface) ?? '(unknown domain)'}`;
    cells.set(key, [...(cells.get(key) ?? []), group]);
  }
  return [...cells.entries()]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([key, groups]) => {
      const [provider, domain] = key.split('\u0000') as [string, string];
      // Ties: the surface id decides, so the headline is stable.
      const ranked = [...groups].sort(
        (left, right) =>
          right.task_success.value! - left.task_success.value! || left.surface.localeCompare(right.surface),
      );
      const best = ranked[0]!;
      const worst = ranked[ranked.length - 1]!;
      return {
        provider,
        domain,
        split,
        surfaces: groups.length,
        best: { surface: best.surface, rate: best.task_success },
        worst: { surface: worst.surface, rate: worst.task_success },
      };
    });
}
