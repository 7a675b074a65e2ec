import type { ScaffoldTool } from './scaffold-tool.ts';

/** Where the scaffold's tools came from, for the header comment. */
export type ToolOrigin = { kind: 'template' } | { kind: 'file'; file: string; format: string };

const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((line, index) => (index === 0 ? line : `${by}${line}`))
    .join('\n');
const literal = (value: unknown) => JSON.stringify(value, null, 2);
const quote = (text: string) => JSON.stringify(text);

function header(name: string, origin: ToolOrigin): string {
  const source =
    origin.kind === 'file'
      ? `from ${origin.file} (${origin.format} tools file)`
      : 'from the template (two example tools)';
  return `/**
 * The "${name}" domain, scaffolded by \`toolmark init\` ${source}.
 * A domain is a fake backend (fresh state per trial) plus registry tools
 * that enforce a runtime contract; the model only ever sees the surface
 * (surfaces/*.yaml). Reference: docs/domains.md in the toolmark package.
 *
 * Before trusting the numbers:
 *   1. Check each action's effect, permission and approval below: writes
 *      were guessed from the tool names, and nothing needs a permission yet.
 *   2. Replace the handlers' canned answers with a small in-memory backend
 *      (createState), so multi-step tasks can read what earlier calls did.
 *   3. Add a view for every piece of state a task's \`final_state\` checks.
 * Schemas are plain JSON Schema, as in the tools file; zod 3 or zod 4
 * schemas work too, with whichever zod your project has.
 */`;
}

function actionSource(tool: ScaffoldTool): string {
  return `{ id: ${quote(tool.name)}, description: ${quote(tool.description)}, effect: ${quote(tool.effect)}, permission: null, approval: 'never', idempotency_key: null }`;
}

function toolSource(tool: ScaffoldTool): string {
  const body =
    tool.effect === 'write'
      ? `// A write: log it (counted as a side effect, judged against the contract) and keep it in state.
    recordEffect({ action: ${quote(tool.name)}, effect: 'write', target: JSON.stringify(input) });
    state.writes.push({ action: ${quote(tool.name)}, arguments: input });
    return { ok: true };`
      : `// A read: a canned answer. Return fail(toolError('not_found', '…')) for a domain error.
    return { ok: true, tool: ${quote(tool.name)}, arguments: input };`;
  return `tool({
  name: ${quote(tool.name)},
  description: ${quote(tool.description)},
  input: ${indent(literal(tool.inputSchema), '  ')},
  output: { type: 'object' },
  ${tool.effect === 'write' ? 'handler(input, { state, recordEffect }) {' : 'handler(input) {'}
    ${body}
  },
})`;
}

/** The text of `suites/<name>/domain.ts` for these tools, importing only the public API. */
export function domainSource(name: string, description: string, tools: ScaffoldTool[], origin: ToolOrigin): string {
  const usesWrites = tools.some((tool) => tool.effect === 'write');
  const imports = ['defineDomain', 'defineToolFor', 'type ActionSpec'];
  return `${header(name, origin)}
import { ${imports.join(', ')} } from 'toolmark';

interface State {
  /** Writes that went through, in order${usesWrites ? '' : ' (none of these tools writes yet)'}. */
  writes: { action: string; arguments: unknown }[];
}

/**
 * Canonical actions: what tasks expect, whatever a surface names the tool,
 * each with its runtime contract (effect, permission, approval, idempotency
 * key), which the model never sees and the registry enforces.
 */
const actions: ActionSpec[] = [
${tools.map((tool) => `  ${actionSource(tool)},`).join('\n')}
];

/** \`defineTool\` with this domain's state: handlers get their input typed from the schema. */
const tool = defineToolFor<State>();

/** Registry tools, one per action (a tool's name is its action's id). */
const tools = [
${tools.map((tool) => `  ${indent(toolSource(tool), '  ')},`).join('\n')}
];

export default defineDomain<State>({
  name: ${quote(name)},
  description: ${quote(description)},
  actions,
  tools,
  createState: () => ({ writes: [] }),
  views: {
    write_count: (state) => state.writes.length,
  },
});
`;
}
