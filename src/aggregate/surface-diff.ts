import type {
  ExposedTool,
  PayloadCost,
  ResolvedSurface,
  SchemaChange,
  SurfaceDiff,
  TextChange,
  ToolDiff,
} from '../spec/index.ts';
import { wordDiff } from './word-diff.ts';

/**
 * The surface diff of a revision review: which tools were added, removed,
 * renamed or reordered, word-level diffs of descriptions and parameter
 * texts, structural schema changes, and bytes/o200k tokens per tool before
 * and after. Tools are matched as a revision's entries are (SPEC §3): by
 * action for an identity tool, by registry tool for a multiplexed one.
 */

type Schema = Record<string, unknown>;

function toolKey(tool: ExposedTool): string {
  return tool.mapping.kind === 'identity' ? tool.mapping.action : `tool:${tool.tool}`;
}

function toolActions(tool: ExposedTool): string[] {
  return tool.mapping.kind === 'identity'
    ? [tool.mapping.action]
    : [...new Set(Object.values(tool.mapping.map))].sort();
}

const isObject = (value: unknown): value is Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Child schemas by dotted path: object properties and array items (`path[]`). */
function children(schema: Schema, path: string): [string, Schema][] {
  const found: [string, Schema][] = [];
  if (isObject(schema.properties)) {
    for (const [name, child] of Object.entries(schema.properties))
      if (isObject(child)) found.push([path ? `${path}.${name}` : name, child]);
  }
  if (isObject(schema.items)) found.push([`${path}[]`, schema.items]);
  return found;
}

/** Every parameter description, by dotted path. */
function parameterTexts(schema: Schema, path = '', into = new Map<string, string>()): Map<string, string> {
  for (const [childPath, child] of children(schema, path)) {
    if (typeof child.description === 'string') into.set(childPath, child.description);
    parameterTexts(child, childPath, into);
  }
  return into;
}

/** Every schema node by path, with its own keywords apart from descriptions and children. */
function schemaNodes(schema: Schema, path = '(root)', into = new Map<string, Schema>()): Map<string, Schema> {
  const { description: _description, properties: _properties, items: _items, ...own } = schema;
  into.set(path, own);
  for (const [childPath, child] of children(schema, path === '(root)' ? '' : path)) schemaNodes(child, childPath, into);
  return into;
}

const show = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

function schemaChanges(a: Schema, b: Schema): SchemaChange[] {
  const before = schemaNodes(a);
  const after = schemaNodes(b);
  const changes: SchemaChange[] = [];
  for (const [path, node] of after) {
    const old = before.get(path);
    if (old === undefined) {
      changes.push({ path, change: `added (${show(node.type)})` });
      continue;
    }
    for (const keyword of [...new Set([...Object.keys(old), ...Object.keys(node)])].sort()) {
      if (JSON.stringify(old[keyword]) !== JSON.stringify(node[keyword]))
        changes.push({ path, change: `${keyword}: ${show(old[keyword])} → ${show(node[keyword])}` });
    }
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push({ path, change: 'removed' });
  return changes;
}

function textChange(field: string, before: string | null, after: string | null): TextChange | null {
  if (before === after) return null;
  return { field, before, after, diff: wordDiff(before ?? '', after ?? '') };
}

function textChanges(a: ExposedTool | null, b: ExposedTool | null): TextChange[] {
  const changes: (TextChange | null)[] = [textChange('description', a?.description ?? null, b?.description ?? null)];
  const before = a ? parameterTexts(a.parameters) : new Map<string, string>();
  const after = b ? parameterTexts(b.parameters) : new Map<string, string>();
  for (const path of [...new Set([...before.keys(), ...after.keys()])])
    changes.push(textChange(`parameter ${path}`, before.get(path) ?? null, after.get(path) ?? null));
  return changes.filter((change): change is TextChange => change !== null);
}

/** Counts bytes and tokens of a payload (the CLI passes src/cost's schemaCost: aggregate does not tokenize). */
export type PayloadCounter = (payload: unknown) => PayloadCost;

function costOf(surface: ResolvedSurface, tool: ExposedTool | null, schemaCost: PayloadCounter) {
  if (tool === null) return null;
  const definition = surface.payload.find((entry) => entry.name === tool.name);
  return definition ? schemaCost(definition) : null;
}

/** Do the tools both sides share appear in the same relative order? */
function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  const common = new Set(a.filter((key) => b.includes(key)));
  const left = a.filter((key) => common.has(key));
  const right = b.filter((key) => common.has(key));
  return left.every((key, index) => key === right[index]);
}

/** Diff two resolved surfaces of one domain (A = before, B = after). */
export function diffSurfaces(a: ResolvedSurface, b: ResolvedSurface, schemaCost: PayloadCounter): SurfaceDiff {
  const keysA = a.tools.map(toolKey);
  const keysB = b.tools.map(toolKey);
  const keys = [...keysB, ...keysA.filter((key) => !keysB.includes(key))];
  const tools: ToolDiff[] = keys.map((key) => {
    const indexA = keysA.indexOf(key);
    const indexB = keysB.indexOf(key);
    const toolA = indexA < 0 ? null : a.tools[indexA]!;
    const toolB = indexB < 0 ? null : b.tools[indexB]!;
    const texts = toolA && toolB ? textChanges(toolA, toolB) : [];
    const schema = toolA && toolB ? schemaChanges(toolA.parameters, toolB.parameters) : [];
    const renamed = toolA !== null && toolB !== null && toolA.name !== toolB.name;
    const status: ToolDiff['status'] =
      toolA === null
        ? 'added'
        : toolB === null
          ? 'removed'
          : texts.length || schema.length || renamed
            ? 'changed'
            : 'unchanged';
    return {
      key,
      actions: [...new Set([...(toolA ? toolActions(toolA) : []), ...(toolB ? toolActions(toolB) : [])])].sort(),
      status,
      name: { a: toolA?.name ?? null, b: toolB?.name ?? null },
      renamed,
      position: { a: indexA < 0 ? null : indexA, b: indexB < 0 ? null : indexB },
      texts,
      schema,
      cost: { a: costOf(a, toolA, schemaCost), b: costOf(b, toolB, schemaCost) },
    };
  });
  const surfaceTexts = [
    textChange('system prompt', a.system, b.system),
    a.strict === b.strict
      ? null
      : {
          field: 'strict',
          before: String(a.strict),
          after: String(b.strict),
          diff: [
            { op: 'del' as const, text: String(a.strict) },
            { op: 'add' as const, text: String(b.strict) },
          ],
        },
  ].filter((change): change is TextChange => change !== null);
  return {
    domain: a.domain,
    a: { id: a.id, hash: a.hash },
    b: { id: b.id, hash: b.hash },
    unavailable: null,
    tools,
    reordered: !sameOrder(keysA, keysB),
    surfaceTexts,
    total: { a: schemaCost(a.payload), b: schemaCost(b.payload) },
  };
}

/** A surface diff that could not be made, saying why. */
export function unavailableDiff(
  domain: string,
  a: { id: string; hash: string } | null,
  b: { id: string; hash: string } | null,
  reason: string,
): SurfaceDiff {
  return {
    domain,
    a,
    b,
    unavailable: reason,
    tools: [],
    reordered: false,
    surfaceTexts: [],
    total: { a: null, b: null },
  };
}
