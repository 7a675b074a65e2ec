import { access } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { declarativeDomain } from '../domains/declarative/declarative-domain.ts';
import { literalHeaderValues, McpServerConfig } from '../domains/mcp/server-config.ts';
import { errorTable, importedSchema, type ResolvedDefinition } from '../domains/tool-definition.ts';
import type { Domain } from '../registry/domain.ts';
import { fromJsonSchema, JsonSchemaError, type ToolSchema } from '../registry/schema/index.ts';
import { DomainFile, type ConfigIssue, type ImportedTool, type JsonSchema, type McpTool } from '../spec/index.ts';
import { checkConstraint } from './constraints.ts';
import { readSourceFile, type SourceFile } from './source-file.ts';
import { closest } from '../spec/suggest.ts';
import { readToolFile } from './tool-files.ts';
import { zodIssuesToConfigIssues } from './zod-issues.ts';

/** The file name of a YAML domain in `suites/<name>/`. */
export const DOMAIN_YAML = 'domain.yaml';

/** Compile a schema written in the domain file, or report why it cannot be used. */
function compile(
  source: SourceFile,
  path: (string | number)[],
  schema: JsonSchema,
  imported: boolean,
  issues: ConfigIssue[],
): ToolSchema | null {
  try {
    return imported ? importedSchema(schema) : fromJsonSchema(schema);
  } catch (error) {
    if (!(error instanceof JsonSchemaError)) throw error;
    issues.push(source.issue(path, { message: error.message, expected: error.expected }));
    return null;
  }
}

/** Each action's description and schemas: inline fields over the tools file entry named by `from`. */
function resolveDefinitions(
  source: SourceFile,
  file: DomainFile,
  fileTools: readonly ImportedTool[] | null,
  issues: ConfigIssue[],
): Map<string, ResolvedDefinition> {
  const definitions = new Map<string, ResolvedDefinition>();
  const byName = new Map((fileTools ?? []).map((tool) => [tool.name, tool]));
  file.actions.forEach((action, index) => {
    const at = (field?: string) => (field ? ['actions', index, field] : ['actions', index]);
    const name = action.from ?? (file.kind === 'mcp' ? action.id : undefined);
    const fromFile = name !== undefined ? byName.get(name) : undefined;
    if (name !== undefined && !fromFile) {
      const names = [...byName.keys()];
      issues.push(
        source.issue(at(action.from !== undefined ? 'from' : 'id'), {
          message: fileTools ? `no tool "${name}" in tools_file` : `\`from: ${name}\` needs a tools_file`,
          expected: names.length > 0 ? `one of ${names.join(', ')}` : undefined,
          suggestion: closest(name, names),
        }),
      );
      return;
    }
    const input =
      action.input !== undefined
        ? compile(source, at('input'), action.input, false, issues)
        : fromFile
          ? compile(source, at('from'), fromFile.inputSchema, true, issues)
          : null;
    if (action.input === undefined && !fromFile)
      issues.push(
        source.issue(at(), {
          message: `action ${action.id} has no input schema`,
          expected: '`input:` (a JSON Schema) or `from:` (a tool of tools_file)',
        }),
      );
    const outputSchema = action.output ?? fromFile?.outputSchema;
    const output =
      outputSchema === undefined
        ? null
        : compile(
            source,
            at(action.output !== undefined ? 'output' : 'from'),
            outputSchema,
            action.output === undefined,
            issues,
          );
    if (!input || (outputSchema !== undefined && !output)) return;
    definitions.set(action.id, { description: action.description ?? fromFile?.description ?? '', input, output });
  });
  return definitions;
}

/** Cross-field checks: unique ids, preview pairs, fixture constraints and error codes, store collections. */
function checkActions(source: SourceFile, file: DomainFile, issues: ConfigIssue[]): void {
  const ids = file.actions.map((action) => action.id);
  const table = errorTable(file.errors);
  file.actions.forEach((action, index) => {
    if (ids.indexOf(action.id) !== index)
      issues.push(
        source.issue(['actions', index, 'id'], {
          message: `action "${action.id}" is declared twice`,
          expected: 'action ids unique within the domain',
        }),
      );
    if (action.preview !== undefined && !ids.includes(action.preview))
      issues.push(
        source.issue(['actions', index, 'preview'], {
          message: `preview action "${action.preview}" is not an action of this domain`,
          suggestion: closest(action.preview, ids),
        }),
      );
    if (file.kind === 'mcp' && (action.responses.length > 0 || action.store))
      issues.push(
        source.issue(['actions', index], {
          message: 'an MCP action is answered by its server',
          expected: 'no `responses:` or `store:` in an MCP domain',
        }),
      );
    action.responses.forEach((response, position) => {
      for (const [field, constraint] of Object.entries(response.when)) {
        const problem = checkConstraint(constraint);
        if (problem) issues.push(source.issue(['actions', index, 'responses', position, 'when', field], problem));
      }
      const code = response.error?.code;
      if (code !== undefined && response.error!.category === undefined && !(code in table)) {
        issues.push(
          source.issue(['actions', index, 'responses', position, 'error', 'code'], {
            message: `unknown error code "${code}"`,
            expected: 'a code declared under `errors:` (with its category), a known code, or a `category:` here',
            suggestion: closest(code, Object.keys(table)),
          }),
        );
      }
    });
  });
}

/** The MCP `server:` section, checked; secrets may only come from the environment. */
function serverConfig(source: SourceFile, file: DomainFile, issues: ConfigIssue[]): McpServerConfig | null {
  if (file.server === undefined) {
    issues.push(
      source.issue([], {
        key: 'kind',
        message: 'an MCP domain needs a `server:` section',
        expected: 'server: {command, args} or server: {url}',
      }),
    );
    return null;
  }
  const parsed = McpServerConfig.safeParse(file.server);
  if (!parsed.success) {
    issues.push(...zodIssuesToConfigIssues(source, McpServerConfig as never, parsed.error, file.server, ['server']));
    return null;
  }
  for (const name of literalHeaderValues(parsed.data)) {
    issues.push(
      source.issue(['server', 'headers', name], {
        message: `header ${name} has a literal value: a secret would sit in the domain file`,
        expected: 'a value naming an environment variable, e.g. "Bearer {env:TOOLS_TOKEN}"',
      }),
    );
  }
  return parsed.data;
}

/** Does a file or folder exist? */
export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Load `suites/<name>/domain.yaml`: a declarative domain (JSON Schema tools,
 * fixtures, a record store) or an MCP domain (a live server behind the
 * registry). Every problem is a located issue; the domain is then null.
 * Loading never starts a server: the definitions come from `tools_file`.
 */
export async function loadYamlDomain(root: string, name: string, issues: ConfigIssue[]): Promise<Domain | null> {
  const dir = join(root, 'suites', name);
  const path = join(dir, DOMAIN_YAML);
  const before = issues.length;
  if (await exists(join(dir, 'domain.ts')))
    issues.push({
      file: relative(root, path),
      message: `suites/${name} has both domain.ts and domain.yaml`,
      expected: 'one domain file per folder',
    });
  const source = await readSourceFile(path, root, issues);
  if (!source) return null;
  const value = source.value();
  const parsed = DomainFile.safeParse(value);
  if (!parsed.success) {
    issues.push(...zodIssuesToConfigIssues(source, DomainFile as never, parsed.error, value));
    return null;
  }
  const file = parsed.data;
  if (file.name !== name)
    issues.push(
      source.issue(['name'], {
        message: `domain name "${file.name}" differs from its folder "${name}"`,
        expected: `"${name}"`,
      }),
    );
  if (file.kind === 'declarative' && file.server !== undefined)
    issues.push(
      source.issue(['server'], {
        message: 'a declarative domain has no server',
        expected: 'kind: mcp, or no `server:`',
      }),
    );
  if (file.kind === 'mcp' && file.tools_file === undefined)
    issues.push(
      source.issue([], {
        key: 'kind',
        message: 'an MCP domain needs `tools_file:` (the imported tools/list)',
        expected: 'tools_file: tools.json, as written by toolmark import mcp',
      }),
    );
  checkActions(source, file, issues);

  let fileTools: ImportedTool[] | null = null;
  if (file.tools_file !== undefined) {
    const spec = typeof file.tools_file === 'string' ? { path: file.tools_file } : file.tools_file;
    const read = await readToolFile(join(dirname(path), spec.path), root, issues, {
      format: spec.format ?? (file.kind === 'mcp' ? 'mcp' : undefined),
    });
    if (!read) return null;
    fileTools = read.tools;
  }
  const definitions = resolveDefinitions(source, file, fileTools, issues);
  const server = file.kind === 'mcp' ? serverConfig(source, file, issues) : null;
  if (file.kind === 'mcp') {
    const names = (fileTools ?? []).map((tool) => tool.name);
    for (const [view, spec] of Object.entries(file.views)) {
      if (!names.includes(spec.call))
        issues.push(
          source.issue(['views', view, 'call'], {
            message: `no tool "${spec.call}" in tools_file`,
            suggestion: closest(spec.call, names),
          }),
        );
    }
  } else if (Object.keys(file.views).length > 0) {
    issues.push(
      source.issue(['views'], {
        message: "a declarative domain's views are its store collections",
        expected: 'no `views:` (every collection of `store:` is a view)',
      }),
    );
  }
  if (issues.length > before) return null;
  if (file.kind !== 'mcp') return declarativeDomain(file, definitions);
  // The MCP SDK is loaded only by a project that has an MCP domain.
  const { mcpDomain } = await import('../domains/mcp/mcp-domain.ts');
  return mcpDomain(file, server!, dir, fileTools as McpTool[], definitions);
}
