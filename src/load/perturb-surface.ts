import type { DistractorSource, Perturbation, ResolvedSurface, ToolDefinition } from '../spec/index.ts';
import type { DistractorSources } from './distractors.ts';
import { parseDistractorSource } from './distractors.ts';
import { isPerturbProblem, perturbTools, type PerturbProblem } from './perturb.ts';

/**
 * A resolved surface with `perturb:` applied (tools, payload, distractor
 * names, the declaration kept for `validate --print-surface`). The hash is
 * set by `finishSurface`, after visibility.
 */
export function perturbSurface(
  surface: ResolvedSurface,
  perturb: Perturbation,
  external: ReadonlyMap<DistractorSource, readonly ToolDefinition[]>,
): ResolvedSurface | PerturbProblem {
  const result = perturbTools(surface, perturb, external);
  if (isPerturbProblem(result)) return result;
  return {
    ...surface,
    tools: result.tools,
    payload: result.payload,
    ...(result.distractors.length > 0 ? { distractors: result.distractors } : {}),
    // A deferred surface names its always-loaded tools by exposed name: they follow an opaque renaming.
    ...(surface.loading
      ? {
          loading: {
            ...surface.loading,
            always_loaded: surface.loading.always_loaded.map((name) => result.renamed.get(name) ?? name),
          },
        }
      : {}),
    perturb,
  };
}

/**
 * Read the `domain:` and `file:` sources a perturbation draws distractors
 * from. Each unreadable source is reported (at `distractors.from[i]`);
 * null when any failed.
 */
export async function readDistractorSources(
  perturb: Perturbation,
  sources: DistractorSources | undefined,
  report: (path: (string | number)[], details: { message: string; expected?: string; suggestion?: string }) => void,
): Promise<Map<DistractorSource, ToolDefinition[]> | null> {
  const external = new Map<DistractorSource, ToolDefinition[]>();
  let ok = true;
  for (const [index, source] of (perturb.distractors?.from ?? []).entries()) {
    const parsed = parseDistractorSource(source);
    if (parsed.kind === 'generated') continue;
    const at = ['distractors', 'from', index];
    if (!sources) {
      report(at, { message: `distractor source ${source} cannot be read here`, expected: 'generated' });
      ok = false;
      continue;
    }
    const tools = parsed.kind === 'domain' ? await sources.domain(parsed.name) : await sources.file(parsed.path);
    if (Array.isArray(tools)) external.set(source, tools);
    else {
      ok = false;
      const choices = 'choices' in tools ? (tools.choices as string[]) : [];
      report(at, {
        message: tools.problem,
        ...(choices.length > 0 ? { expected: `one of ${choices.map((name) => `domain:${name}`).join(', ')}` } : {}),
      });
    }
  }
  return ok ? external : null;
}
