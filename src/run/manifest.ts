import { execFileSync } from 'node:child_process';
import type { SchemaCost } from '../cost/schema-cost.ts';
import { surfaceKey, type PlannedTrial } from '../solve/index.ts';
import type { Manifest } from '../spec/index.ts';

/** Surfaces (with hash and schema cost) and tasks of a plan, as the manifest lists them. */
export function describePlan(
  plan: readonly PlannedTrial[],
  costs: ReadonlyMap<string, SchemaCost>,
): Pick<Manifest, 'surfaces' | 'tasks'> {
  const surfaces = new Map<string, Manifest['surfaces'][number]>();
  const tasks = new Map<string, Manifest['tasks'][number]>();
  for (const planned of plan) {
    const key = `${planned.domain.name}/${planned.surface.id}`;
    if (!surfaces.has(key)) {
      const cost = costs.get(surfaceKey(planned))!;
      surfaces.set(key, {
        domain: planned.domain.name,
        id: planned.surface.id,
        hash: planned.surface.hash,
        schema_tokens: cost.tokens,
        schema_bytes: cost.bytes,
      });
    }
    tasks.set(`${planned.domain.name}/${planned.task.id}`, {
      domain: planned.domain.name,
      id: planned.task.id,
      kind: planned.task.kind,
      split: planned.task.split,
    });
  }
  return { surfaces: [...surfaces.values()], tasks: [...tasks.values()] };
}

/** The git commit of the project, if it is a git checkout. */
export function gitCommit(root: string): string | null {
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() || null
    );
  } catch {
    return null;
  }
}
