import type { Domain } from '../../registry/domain.ts';
import { fail } from '../../registry/index.ts';
import { anyValueSchema, fromJsonSchema } from '../../registry/schema/index.ts';
import type { ToolSpec } from '../../registry/tool-spec.ts';
import { canonicalJson, ToolEnvironmentError, type DomainFile, type Json, type McpTool } from '../../spec/index.ts';
import { actionSpec } from '../declarative/declarative-domain.ts';
import { runtimeOf, type ResolvedDefinition } from '../tool-definition.ts';
import { interpretResult } from './call-result.ts';
import { pathView, SAME_PATHS, type PathView } from './path-view.ts';
import type { McpServerConfig } from './server-config.ts';
import { ServerPool, type Lease } from './server-pool.ts';

/** One trial's state in an MCP domain: its own server session and folder. */
export interface McpTrialState {
  lease: Lease;
  paths: PathView;
}

const ANYTHING = anyValueSchema();

/** Part of a JSON value by a dotted path; `name[]` maps the rest of the path over the list `name`. */
export function pick(value: Json, path: string): Json {
  const [head, ...rest] = path.split('.');
  const list = head!.endsWith('[]');
  const key = list ? head!.slice(0, -2) : head!;
  const child = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value[key] ?? null) : null;
  if (list)
    return Array.isArray(child) ? child.map((item) => (rest.length > 0 ? pick(item, rest.join('.')) : item)) : [];
  return rest.length > 0 ? pick(child, rest.join('.')) : child;
}

/** The first difference between the imported definitions and what the server lists now, or null. */
export function toolsDifference(imported: readonly McpTool[], live: readonly McpTool[]): string | null {
  const byName = new Map(live.map((tool) => [tool.name, tool]));
  for (const tool of imported) {
    const now = byName.get(tool.name);
    if (!now) return `tool ${tool.name} is no longer listed`;
    for (const field of ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const) {
      if (canonicalJson(tool[field]) !== canonicalJson(now[field])) return `tool ${tool.name}: ${field} differs`;
    }
  }
  const extra = live.find((tool) => !imported.some((known) => known.name === tool.name));
  return extra ? `tool ${extra.name} is new` : null;
}

/**
 * An MCP domain (docs/domain-yaml.md): each action is a registry tool whose
 * handler sends `tools/call` to the trial's own server — after the registry
 * pipeline (schema, permission, approval, timeout, idempotency) let the call
 * through. A fresh server (and workdir) per trial; at most `max_sessions` at
 * once; all closed by `close()`. The first session also checks that the
 * server still lists the imported definitions.
 */
export function mcpDomain(
  file: DomainFile,
  server: McpServerConfig,
  dir: string,
  imported: readonly McpTool[],
  definitions: ReadonlyMap<string, ResolvedDefinition>,
): Domain<McpTrialState> {
  const pool = new ServerPool(server, dir);
  let checked: Promise<void> | null = null;
  const shownAs = server.workdir?.shown_as;

  const tools: ToolSpec<McpTrialState>[] = file.actions.map((action) => {
    const definition = definitions.get(action.id)!;
    const serverTool = action.from ?? action.id;
    return {
      name: action.id,
      description: definition.description,
      input: definition.input,
      // structuredContent is checked against outputSchema in interpretResult, where an MCP result is understood.
      output: ANYTHING,
      runtime: runtimeOf(action),
      async handler(input: Record<string, Json>, { state, signal, recordEffect }) {
        const result = await state.lease.session.callTool(serverTool, state.paths.toServer(input), { signal });
        const meaning = interpretResult(serverTool, result, definition.output);
        if ('error' in meaning) return fail(state.paths.toModel(meaning.error));
        if (action.effect !== 'read') {
          const target = action.target !== undefined ? input[action.target] : (input.path ?? input.source ?? input);
          recordEffect({
            action: action.id,
            effect: action.effect,
            target: typeof target === 'string' ? target : canonicalJson(target),
          });
        }
        return state.paths.toModel(meaning.output);
      },
    };
  });

  const views = Object.fromEntries(
    Object.entries(file.views).map(([name, view]) => [
      name,
      async (state: McpTrialState): Promise<Json> => {
        const result = await state.lease.session.callTool(view.call, state.paths.toServer(view.arguments));
        const meaning = interpretResult(view.call, result, null);
        // A view of something absent (a file never written) is an answer, not a failure.
        if ('error' in meaning) return { error: state.paths.toModel(meaning.error.message) };
        return state.paths.toModel(view.pick === undefined ? meaning.output : pick(meaning.output, view.pick));
      },
    ]),
  );

  return {
    name: file.name,
    description: file.description,
    actions: file.actions.map(actionSpec(definitions)),
    tools,
    async createState() {
      const lease = await pool.lease();
      try {
        checked ??= lease.session.listTools().then((live) => {
          const difference = toolsDifference(imported, live);
          if (difference)
            throw new ToolEnvironmentError(
              `the server's tools differ from the imported ${file.name}/tools.json (${difference}); re-import with toolmark import mcp to update the domain`,
            );
        });
        await checked;
      } catch (error) {
        await lease.release();
        throw error;
      }
      return {
        lease,
        paths: lease.workdir !== null && shownAs !== undefined ? pathView(lease.workdir, shownAs) : SAME_PATHS,
      };
    },
    teardown: (state) => state.lease.release(),
    close: () => pool.closeAll(),
    views,
    hashBasis: imported,
  };
}
