import type { Actor, ResolvedSurface, ToolDefinition } from '../spec/index.ts';

// Filtered lists by the list they came from and the actor's permission set,
// so every request of one actor sends (and counts the schema cost of) one
// array, as with a surface's own payload.
const shown = new WeakMap<readonly ToolDefinition[], Map<string, ToolDefinition[]>>();

/**
 * The tools of a request that a task's actor is shown: all of `tools`,
 * unless the surface has `visibility: by_permission` (issue 19 item 2), when
 * tools needing a permission the actor lacks are left out. `tools` is the
 * surface's payload, or a deferred surface's tools of this turn (the search
 * meta-tool needs no permission, so it stays). Hiding is only presentation:
 * a hidden tool stays routable, so a call to it anyway reaches the registry,
 * which refuses it (`permission_denied`), and the call is scored.
 */
export function visibleTools<T extends ToolDefinition>(
  surface: ResolvedSurface,
  tools: T[],
  actor: Pick<Actor, 'permissions'> | undefined,
): T[] {
  const table = surface.visibility;
  if (!table || !actor) return tools;
  const key = [...new Set(actor.permissions)].sort().join('\n');
  let byActor = shown.get(tools);
  if (!byActor) shown.set(tools, (byActor = new Map()));
  let visible = byActor.get(key);
  if (!visible) {
    const has = new Set(actor.permissions);
    visible = tools.filter((tool) => {
      const needed = table.permissions[tool.name];
      return needed === undefined || has.has(needed);
    });
    byActor.set(key, visible);
  }
  return visible as T[];
}

/** The surface's whole payload as the actor is shown it (what an eager trial's schema cost counts). */
export function visiblePayload(surface: ResolvedSurface, actor: Pick<Actor, 'permissions'>): ToolDefinition[] {
  return visibleTools(surface, surface.payload, actor);
}
