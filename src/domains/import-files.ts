import { stringify } from 'yaml';
import type { Effect, ImportedTool, ToolFileFormat } from '../spec/index.ts';

/** The files an import writes into `suites/<name>/`, by path relative to that folder. */
export type ImportedFiles = Record<string, string>;

/** A proposed runtime contract for one imported tool, with where each value came from. */
export interface ProposedContract {
  effect: Effect;
  permission: string;
  approval: 'never' | 'required';
  /** Why: the annotation (a hint) or the default that gave the effect. */
  hint: string;
}

/**
 * Propose a contract from a tool's annotations. They are hints from the
 * server, not a contract (SPEC §4): the proposal is marked `reviewed: false`
 * and says which hint it came from. MCP's own defaults apply when a hint is
 * absent: a tool is not read-only, and a non-read-only tool is destructive.
 */
export function proposeContract(domain: string, tool: ImportedTool, hasAnnotations: boolean): ProposedContract {
  const hints = tool.annotations ?? {};
  if (hints.readOnlyHint === true)
    return { effect: 'read', permission: `${domain}:read`, approval: 'never', hint: 'readOnlyHint: true' };
  if (hints.destructiveHint === false)
    return {
      effect: 'write',
      permission: `${domain}:write`,
      approval: 'never',
      hint: `destructiveHint: false${hints.idempotentHint ? ', idempotentHint: true' : ''}`,
    };
  if (hints.destructiveHint === true)
    return {
      effect: 'destructive',
      permission: `${domain}:write`,
      approval: 'required',
      hint: `destructiveHint: true${hints.idempotentHint ? ', idempotentHint: true' : ''}`,
    };
  if (!hasAnnotations)
    return {
      effect: 'write',
      permission: `${domain}:write`,
      approval: 'never',
      hint: 'no annotations in a tools file: assumed a write',
    };
  return {
    effect: 'destructive',
    permission: `${domain}:write`,
    approval: 'required',
    hint: 'no readOnlyHint/destructiveHint: MCP defaults (not read-only, destructive)',
  };
}

/** A YAML scalar on one line (quoted when it must be). */
function scalar(value: unknown): string {
  return stringify(value, { lineWidth: 0 }).trimEnd();
}

export interface ImportOptions {
  /** The domain name (folder under `suites/`). */
  name: string;
  description: string;
  tools: ImportedTool[];
  /** Where the definitions came from: written into `tools.json` in this format. */
  format: ToolFileFormat;
  /** The definitions exactly as the source states them (the file's JSON, or the tools/list result). */
  toolsJson: unknown;
  /** For an MCP domain: the `server:` section. */
  server?: Record<string, unknown>;
  /** For an MCP domain: final_state views, by name. */
  views?: Record<string, unknown>;
}

/**
 * The files of an imported domain: `domain.yaml` (kind, server, contract
 * section to review), `tools.json` (the definitions exactly as stated) and
 * `surfaces/imported.yaml` (every tool under its own name, texts untouched).
 */
export function importedDomainFiles(options: ImportOptions): ImportedFiles {
  const hasAnnotations = options.format === 'mcp';
  const lines: string[] = [
    '# Written by toolmark import. The tools (names, descriptions, schemas) are',
    '# in tools.json exactly as the source states them; edit surfaces, not that file.',
    'v: 1',
    `name: ${scalar(options.name)}`,
    `description: ${scalar(options.description)}`,
    `kind: ${options.server ? 'mcp' : 'declarative'}`,
  ];
  if (options.server) {
    lines.push(...stringify({ server: options.server }, { lineWidth: 0 }).trimEnd().split('\n'));
  }
  lines.push(
    `tools_file: ${options.format === 'mcp' ? 'tools.json' : `{ path: tools.json, format: ${options.format} }`}`,
  );
  if (options.views && Object.keys(options.views).length > 0)
    lines.push(...stringify({ views: options.views }, { lineWidth: 0 }).trimEnd().split('\n'));
  lines.push(
    '',
    '# The contract: what the registry enforces before any call reaches the tool.',
    '# Proposed from the annotations, which are hints, not a contract: check each',
    '# action (effect, permission, approval, idempotency key) and set reviewed: true.',
    'actions:',
  );
  for (const tool of options.tools) {
    const proposed = proposeContract(options.name, tool, hasAnnotations);
    lines.push(
      `  - id: ${scalar(`${options.name}.${tool.name}`)}`,
      `    from: ${scalar(tool.name)}`,
      `    effect: ${proposed.effect}            # hint: ${proposed.hint}`,
      `    permission: ${scalar(proposed.permission)}`,
      `    approval: ${proposed.approval}`,
      '    idempotency_key: null',
      '    reviewed: false',
    );
  }
  const strict = options.tools.length > 0 && options.tools.every((tool) => tool.strict === true);
  const surface = [
    '# The tools exactly as imported: names and descriptions as the source states them.',
    '# A revision (extends: imported) can rewrite descriptions to A/B them.',
    'v: 1',
    'id: imported',
    `description: ${scalar(`${options.name} as imported`)}`,
    ...(strict ? ['strict: true'] : []),
    'tools:',
    ...options.tools.flatMap((tool) => [
      `  - action: ${scalar(`${options.name}.${tool.name}`)}`,
      `    name: ${scalar(tool.name)}`,
    ]),
  ];
  return {
    'domain.yaml': `${lines.join('\n')}\n`,
    'tools.json': `${JSON.stringify(options.toolsJson, null, 2)}\n`,
    'surfaces/imported.yaml': `${surface.join('\n')}\n`,
  };
}
