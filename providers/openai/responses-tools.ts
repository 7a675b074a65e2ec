import type { FunctionTool, NamespaceTool, Tool } from 'openai/resources/responses/responses';
import { encodeToolName } from '../../src/spec/tool-name.ts';
import { namespaceOf } from '../../src/spec/search-namespaces.ts';
import type { SearchNamespace } from '../../src/spec/surface-loading.ts';
import type { ModelRequest, ToolDefinition } from '../../src/spec/model.ts';
import type { WireNames } from '../http/wire-names.ts';

/**
 * The Responses API's tool payload, flat or grouped into `namespace` tools
 * (issue 19, OpenAI's tool search): a request whose `tool_search` lists
 * namespaces sends each tool named `<namespace>.<rest>` inside that
 * namespace as `<rest>` (wire-encoded), and the model's calls to it come
 * back as `{namespace, name}`; every other tool is a flat function.
 */

/** Where an exposed name goes on the wire: a flat name, or a name inside a namespace. */
export interface ResponsesWireName {
  name: string;
  namespace?: string;
}

/** The name mapping of one Responses request, namespaces included. */
export interface ResponsesNames {
  encode(name: string): ResponsesWireName;
  /** The exposed name of a call or a loaded tool; an unknown one is kept as written (`namespace.name`). */
  decode(name: string, namespace?: string | null): string;
  /** The request's namespaces (empty: every tool flat). */
  namespaces: readonly SearchNamespace[];
}

const innerKey = (namespace: string, wireName: string) => `${namespace}\n${wireName}`;

/** The mapping for `request`: namespaced tools by (namespace, inner wire name), the rest through `names`. */
export function responsesNames(request: ModelRequest, names: WireNames): ResponsesNames {
  const namespaces = request.tool_search?.namespaces ?? [];
  const grouped = new Map<string, ResponsesWireName>();
  const byInner = new Map<string, string>();
  for (const tool of request.tools) {
    const place = namespaceOf(tool.name, namespaces);
    if (!place) continue;
    const wire = { namespace: place.namespace, name: encodeToolName(place.inner) };
    grouped.set(tool.name, wire);
    byInner.set(innerKey(wire.namespace, wire.name), tool.name);
  }
  return {
    namespaces,
    encode: (name) => {
      const known = grouped.get(name);
      if (known) return known;
      // A call to an unknown function of a namespace (decoded as `namespace.name` below) goes back as written.
      const invented = namespaceOf(name, namespaces);
      return invented ? { namespace: invented.namespace, name: invented.inner } : { name: names.encode(name) };
    },
    decode: (name, namespace) =>
      namespace ? (byInner.get(innerKey(namespace, name)) ?? `${namespace}.${name}`) : names.decode(name),
  };
}

function functionTool(tool: ToolDefinition, name: string): FunctionTool {
  return {
    type: 'function',
    name,
    description: tool.description,
    parameters: tool.parameters as Record<string, unknown>,
    // Always explicit: the Responses API treats an omitted `strict` as true.
    strict: tool.strict,
    // Deferred loading: only name and description are shown until tool_search loads the schema.
    ...(tool.defer_loading ? { defer_loading: true } : {}),
  };
}

/**
 * Tools in the Responses wire shape, in payload order; a namespace stands
 * where its first tool would, holding its tools in their order. A
 * namespace is never deferred itself: `defer_loading` stays on its
 * functions, as the API wants.
 */
export function toResponsesToolPayload(tools: readonly ToolDefinition[], names: ResponsesNames): Tool[] {
  const payload: Tool[] = [];
  const open = new Map<string, NamespaceTool>();
  for (const tool of tools) {
    const wire = names.encode(tool.name);
    if (wire.namespace === undefined) {
      payload.push(functionTool(tool, wire.name));
      continue;
    }
    let namespace = open.get(wire.namespace);
    if (!namespace) {
      const declared = names.namespaces.find((candidate) => candidate.name === wire.namespace)!;
      namespace = { type: 'namespace', name: declared.name, description: declared.description, tools: [] };
      open.set(wire.namespace, namespace);
      payload.push(namespace);
    }
    namespace.tools.push(functionTool(tool, wire.name));
  }
  return payload;
}

/** The exposed names a tool_search_output loaded: its functions, and the functions of each namespace it holds. */
export function loadedNames(tools: readonly Tool[], names: ResponsesNames): string[] {
  return tools.flatMap((tool) =>
    tool.type === 'function'
      ? [names.decode(tool.name)]
      : tool.type === 'namespace'
        ? tool.tools.map((inner) => names.decode(inner.name, tool.name))
        : [],
  );
}
