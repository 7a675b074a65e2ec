import type { ExposedTool, ResolvedSurface } from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import { actionOf, resolveContract } from '../registry/index.ts';

/**
 * `visibility: by_permission` (issue 19 item 2): the permission each exposed
 * tool needs, read from the registry tool's own contract — the same field
 * the registry checks at step 3, so what is hidden is exactly what would be
 * refused. A multiplexed tool that declares no permission stays visible.
 */
export function visibilityTable(
  tools: readonly ExposedTool[],
  domain: Domain,
): NonNullable<ResolvedSurface['visibility']> {
  const actions = new Map(domain.actions.map((action) => [action.id, action]));
  const permissions: Record<string, string> = {};
  for (const exposed of tools) {
    const tool = domain.tools.find((candidate) => candidate.name === exposed.tool);
    if (!tool) continue;
    const { permission } = resolveContract(tool, actionOf(tool, actions));
    if (permission !== null) permissions[exposed.name] = permission;
  }
  return { by: 'permission', permissions };
}
