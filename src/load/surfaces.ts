import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  SurfaceFile,
  sha256,
  validateToolNames,
  type ConfigIssue,
  type ExposedTool,
  type ResolvedSurface,
  type DistractorSource,
  type SurfaceLoading,
  type ToolDefinition,
  type Visibility,
} from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import { jsonSchemaOf } from '../registry/index.ts';
import { readSourceFile, type SourceFile } from './source-file.ts';
import { closest } from '../spec/suggest.ts';
import { entryKey, mergeSurface, type MergedEntry, type MergedSurface } from './surface-merge.ts';
import { hasProperty, makeStrict, overrideParameterDescription, propertyNames } from './tool-schema.ts';
import { zodIssuesToConfigIssues } from './zod-issues.ts';
import { perturbSurface, readDistractorSources } from './perturb-surface.ts';
import type { DistractorSources } from './distractors.ts';
import { visibilityTable } from './visibility.ts';
import { resolveLoading } from './surface-loading.ts';

/** YAML files directly inside a folder, sorted; a missing folder is empty. */
export async function yamlFilesIn(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
      .map((entry) => join(dir, entry.name))
      .sort();
  } catch {
    return [];
  }
}

interface ParsedSurface {
  file: SurfaceFile;
  source: SourceFile;
  path: string;
}

async function readSurfaces(dir: string, root: string, issues: ConfigIssue[]): Promise<ParsedSurface[]> {
  const parsed: ParsedSurface[] = [];
  for (const path of await yamlFilesIn(join(dir, 'surfaces'))) {
    const source = await readSourceFile(path, root, issues);
    if (!source) continue;
    const value = source.value();
    const result = SurfaceFile.safeParse(value);
    if (!result.success) {
      issues.push(...zodIssuesToConfigIssues(source, SurfaceFile, result.error, value));
      continue;
    }
    parsed.push({ file: result.data, source, path });
  }
  return parsed;
}

/** Build one exposed tool from a merged entry, or report why it cannot be. */
function resolveEntry(item: MergedEntry, domain: Domain, strict: boolean, issues: ConfigIssue[]): ExposedTool | null {
  const { entry, origin } = item;
  const at = (field: string | undefined, details: Omit<ConfigIssue, 'file' | 'line' | 'column' | 'field'>) =>
    issues.push(origin.source.issue(field ? [...origin.path, field] : origin.path, details));
  const actionIds = domain.actions.map((action) => action.id);
  const toolNames = domain.tools.map((tool) => tool.name);

  if ((entry.action === undefined) === (entry.tool === undefined)) {
    at(undefined, { message: 'a tool entry needs exactly one of `action` (identity) or `tool` (multiplexed)' });
    return null;
  }
  if (entry.action !== undefined && entry.actions_by !== undefined) {
    at('actions_by', {
      message: '`actions_by` belongs to a multiplexed tool (`tool:`), not to an identity tool (`action:`)',
    });
    return null;
  }
  const registryName = entry.action ?? entry.tool!;
  if (entry.action !== undefined && !actionIds.includes(entry.action)) {
    at('action', {
      message: `unknown action "${entry.action}"`,
      expected: `an action of domain ${domain.name}`,
      suggestion: closest(entry.action, actionIds),
    });
    return null;
  }
  const registryTool = domain.tools.find((tool) => tool.name === registryName);
  if (!registryTool) {
    if (entry.action !== undefined)
      at('action', {
        message: `action "${entry.action}" has no registry tool of the same name, so it cannot be exposed as an identity tool`,
        expected: `a registry tool of domain ${domain.name}`,
        suggestion: closest(entry.action, toolNames),
      });
    else
      at('tool', {
        message: `unknown registry tool "${entry.tool}"`,
        expected: `one of ${toolNames.join(', ')}`,
        suggestion: closest(entry.tool!, toolNames),
      });
    return null;
  }

  const parameters = jsonSchemaOf(registryTool.input);
  let ok = true;
  for (const [dotted, text] of Object.entries(entry.parameters ?? {})) {
    const problem = overrideParameterDescription(parameters, dotted, text);
    if (problem) {
      issues.push(
        origin.source.issue([...origin.path, 'parameters'], {
          key: dotted,
          message: `unknown parameter "${dotted}"${dotted.includes('.') ? ` (no "${problem.missing}" there)` : ''}`,
          expected: problem.available.length > 0 ? `one of ${problem.available.join(', ')}` : 'a parameter of the tool',
          suggestion: closest(problem.missing, problem.available),
        }),
      );
      ok = false;
    }
  }
  if (strict) makeStrict(parameters);

  let mapping: ExposedTool['mapping'];
  if (entry.action !== undefined) mapping = { kind: 'identity', action: entry.action };
  else {
    const by = entry.actions_by;
    if (!by) {
      at(undefined, {
        message: `multiplexed tool "${entry.tool}" needs \`actions_by\` (field, map) to map calls to actions`,
      });
      return null;
    }
    if (!hasProperty(parameters, by.field)) {
      at('actions_by', {
        message: `field "${by.field}" is not a parameter of registry tool ${registryTool.name}`,
        expected: `one of ${propertyNames(parameters).join(', ')}`,
        suggestion: closest(by.field, propertyNames(parameters)),
      });
      ok = false;
    }
    if (by.arguments !== undefined && !hasProperty(parameters, by.arguments)) {
      at('actions_by', {
        message: `arguments field "${by.arguments}" is not a parameter of registry tool ${registryTool.name}`,
        expected: `one of ${propertyNames(parameters).join(', ')}`,
        suggestion: closest(by.arguments, propertyNames(parameters)),
      });
      ok = false;
    }
    for (const [value, action] of Object.entries(by.map)) {
      if (!actionIds.includes(action)) {
        issues.push(
          origin.source.issue([...origin.path, 'actions_by', 'map', value], {
            message: `unknown action "${action}"`,
            expected: `an action of domain ${domain.name}`,
            suggestion: closest(action, actionIds),
          }),
        );
        ok = false;
      }
    }
    mapping = { kind: 'multiplexed', field: by.field, arguments: by.arguments ?? null, map: by.map };
  }
  if (!ok) return null;
  return {
    name: entry.name ?? registryName,
    description: entry.description ?? registryTool.description,
    tool: registryTool.name,
    mapping,
    parameters,
  };
}

/** Turn a merged surface into what a run uses: exposed tools, the provider payload and its hash. */
export function resolveMergedSurface(
  merged: MergedSurface,
  domain: Domain,
  file: string,
  issues: ConfigIssue[],
  external: ReadonlyMap<DistractorSource, readonly ToolDefinition[]> = new Map(),
): ResolvedSurface | null {
  const before = issues.length;
  const tools: ExposedTool[] = [];
  const itemOf: MergedEntry[] = [];
  const byName = new Map<string, MergedEntry>();
  for (const item of merged.entries) {
    const tool = resolveEntry(item, domain, merged.strict, issues);
    if (!tool) continue;
    const earlier = byName.get(tool.name);
    if (earlier) {
      issues.push(
        item.origin.source.issue([...item.origin.path], {
          message: `surface ${merged.id} exposes two tools under the name "${tool.name}" (${entryKey(earlier.entry)} and ${entryKey(item.entry)})`,
          expected: 'unique exposed names',
        }),
      );
    }
    byName.set(tool.name, item);
    tools.push(tool);
    itemOf.push(item);
  }
  // Check growing prefixes so each encoding problem is reported at the tool that introduced it.
  const names = tools.map((tool) => tool.name);
  let known = 0;
  for (let index = 0; index < names.length; index++) {
    const problems = validateToolNames(names.slice(0, index + 1));
    const item = itemOf[index]!;
    for (const problem of problems.slice(known))
      issues.push(
        item.origin.source.issue(item.origin.path, { key: 'name', message: `surface ${merged.id}: ${problem}` }),
      );
    known = problems.length;
  }
  const loading = resolveLoading(merged, tools, itemOf, issues);
  if (issues.length > before || loading === undefined) return null;
  const payload: ToolDefinition[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: merged.strict,
  }));
  const surface: ResolvedSurface = {
    domain: domain.name,
    id: merged.id,
    extends: merged.extends,
    description: merged.description,
    strict: merged.strict,
    system: merged.system,
    tools,
    payload,
    ...(loading ? { loading } : {}),
    hash: '',
    file,
  };
  let derived = surface;
  if (merged.perturb) {
    const result = perturbSurface(surface, merged.perturb, external);
    if ('message' in result) {
      issues.push(
        merged.source.issue(['perturb', ...result.path], { message: result.message, expected: result.expected }),
      );
      return null;
    }
    derived = result;
  }
  return finishSurface(derived, merged.visibility, domain);
}

/**
 * A surface's last steps, shared by loaded and derived (sweep) surfaces:
 * the visibility table (`visibility: by_permission`) and the hash.
 */
export function finishSurface(surface: ResolvedSurface, visibility: Visibility, domain: Domain): ResolvedSurface {
  const table = visibility === 'by_permission' ? visibilityTable(surface.tools, domain) : undefined;
  const { visibility: _old, ...rest } = surface;
  return {
    ...rest,
    ...(table ? { visibility: table } : {}),
    hash: surfaceHash(surface.payload, surface.system, domain.hashBasis, surface.loading ?? null, table),
  };
}

/**
 * The surface hash: the canonical provider payload (names, descriptions,
 * parameter schemas with their texts, order, strict) plus the system prompt
 * when the surface sets one — everything the model sees, nothing it does not
 * (ids, surface descriptions, file layout).
 */
export function surfaceHash(
  payload: readonly ToolDefinition[],
  system: string | null,
  basis?: unknown,
  loading?: SurfaceLoading | null,
  visibility?: ResolvedSurface['visibility'],
): string {
  // Deferred loading changes what the model sees (which tools up front, how it finds the rest),
  // and so does visibility (which tools each actor is shown): both are part of the hash.
  // Eager surfaces that show every tool hash as they always did.
  if (visibility !== undefined)
    return sha256({ payload, system, basis: basis ?? null, ...(loading ? { loading } : {}), visibility });
  if (loading) return sha256({ payload, system, basis: basis ?? null, loading });
  // `basis`: definitions behind the payload that the model does not see (an
  // MCP server's output schemas and annotations); absent for TypeScript domains,
  // whose hashes stay as they were.
  if (basis !== undefined) return sha256({ payload, system, basis });
  return sha256(system === null ? payload : { payload, system });
}

/**
 * Read, merge (`extends`) and resolve every surface of a domain. Unknown
 * parents, cycles and duplicate ids are issues; a surface whose parent failed
 * is skipped quietly (the parent's issue says why).
 */
export async function loadSurfaces(
  dir: string,
  root: string,
  domain: Domain,
  issues: ConfigIssue[],
  sources?: DistractorSources,
): Promise<ResolvedSurface[]> {
  const parsed = await readSurfaces(dir, root, issues);
  const byId = new Map<string, ParsedSurface>();
  for (const surface of parsed) {
    const earlier = byId.get(surface.file.id);
    if (earlier) {
      issues.push(
        surface.source.issue(['id'], {
          message: `duplicate surface id "${surface.file.id}" (also in ${earlier.source.display})`,
          expected: 'ids unique within a domain',
        }),
      );
      continue;
    }
    byId.set(surface.file.id, surface);
  }

  const merged = new Map<string, MergedSurface | null>();
  const merge = (id: string, chain: string[]): MergedSurface | null => {
    if (merged.has(id)) return merged.get(id)!;
    const surface = byId.get(id)!;
    let parent: MergedSurface | null = null;
    const parentId = surface.file.extends;
    if (parentId !== undefined) {
      const path = [...chain, id];
      if (path.includes(parentId)) {
        issues.push(
          surface.source.issue(['extends'], {
            message: `extends cycle: ${[...path.slice(path.indexOf(parentId)), parentId].join(' → ')}`,
          }),
        );
        merged.set(id, null);
        return null;
      }
      if (!byId.has(parentId)) {
        issues.push(
          surface.source.issue(['extends'], {
            message: `unknown parent surface "${parentId}"`,
            expected: `a surface id of domain ${domain.name}`,
            suggestion: closest(
              parentId,
              [...byId.keys()].filter((other) => other !== id),
            ),
          }),
        );
        merged.set(id, null);
        return null;
      }
      parent = merge(parentId, [...chain, id]);
      if (!parent) {
        merged.set(id, null);
        return null;
      }
    }
    const { surface: result, unmatchedRemovals } = mergeSurface(parent, surface.file, surface.source);
    for (const index of unmatchedRemovals) {
      issues.push(
        surface.source.issue(['tools', index], {
          message: `remove: no tool with this ${surface.file.tools[index]!.action ? 'action' : 'tool'} in parent ${parentId ?? '(none)'}`,
        }),
      );
    }
    const keys = new Set(
      result.entries.map((item) => entryKey(item.entry)).filter((key): key is string => key !== undefined),
    );
    surface.file.order?.forEach((key, index) => {
      if (!keys.has(key))
        issues.push(
          surface.source.issue(['order', index], {
            message: `order names "${key}", which is not a tool of this surface`,
            expected: `one of ${[...keys].join(', ')}`,
            suggestion: closest(key, keys),
          }),
        );
    });
    merged.set(id, result);
    return result;
  };

  const resolved: ResolvedSurface[] = [];
  for (const [id, surface] of byId) {
    const result = merge(id, []);
    if (!result) continue;
    const external = result.perturb
      ? await readDistractorSources(result.perturb, sources, (path, details) =>
          issues.push(result.source.issue(['perturb', ...path], details)),
        )
      : new Map();
    if (!external) continue;
    const one = resolveMergedSurface(result, domain, surface.source.display, issues, external);
    if (one) resolved.push(one);
  }
  return resolved;
}
