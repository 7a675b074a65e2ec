import type { Actor, ResolvedSurface, ToolDefinition } from '../spec/index.ts';

// Payloads by surface and permission set, so every trial of one actor sends
// (and counts the schema cost of) one array, as with a surface's own payload.
const shown = new WeakMap<ResolvedSurface, Map<string, readonly ToolDefinition[]>>();

/**
 * The tools payload a task's actor is shown on a surface: the whole payload,
 * unless the surface has `visibility: by_permission` (issue 19 item 2), when
 * tools needing a permission the actor lacks are left out. Hiding is only
 * presentation: a hidden tool stays routable, so a call to it anyway reaches
 * the registry, which refuses it (`permission_denied`) and the call is scored.
 */
export function visiblePayload(surface: ResolvedSurface, actor: Pick<Actor, 'permissions'>): readonly ToolDefinition[] {
  const table = surface.visibility;
  if (!table) return surface.payload;
  const key = [...new Set(actor.permissions)].sort().join('\n');
  let bySurface = shown.get(surface);
  if (!bySurface) shown.set(surface, (bySurface = new Map()));
  let payload = bySurface.get(key);
  if (!payload) {
    const has = new Set(actor.permissions);
    payload = surface.payload.filter((tool) => {
      const needed = table.permissions[tool.name];
      return needed === undefined || has.has(needed);
    });
    bySurface.set(key, payload);
  }
  return payload;
}
