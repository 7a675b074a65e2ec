import type { ExposedTool, ResolvedSurface, Routing, ToolCallProposal, ToolError } from '../spec/index.ts';
import { toolError } from '../spec/index.ts';

/** A proposal mapped onto the surface: which registry tool runs it and which action it means. */
export interface RoutedProposal {
  /** Did the raw argument string parse as a JSON object? */
  parsed: boolean;
  /** The parsed arguments of the call (what the registry tool receives). */
  callArgs: Record<string, unknown> | null;
  routing: Routing;
  /** The exposed tool named by the proposal, if it exists on the surface. */
  exposed: ExposedTool | null;
  /** Set when the call cannot go to the registry: fed back to the model as is. */
  error: ToolError | null;
}

/** Parse a raw argument string; only a JSON object counts as arguments. */
export function parseArguments(
  raw: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      reason: `a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, not an object`,
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * Route one proposal. An unknown exposed name, unparsable arguments and an
 * unknown selector value of a multiplexed tool are model behaviour: they
 * come back as data (a routing record plus the error to feed back).
 */
export function routeProposal(proposal: ToolCallProposal, surface: ResolvedSurface): RoutedProposal {
  const parsed = parseArguments(proposal.arguments);
  const exposed = surface.tools.find((tool) => tool.name === proposal.name) ?? null;
  const callArgs = parsed.ok ? parsed.value : null;
  if (!exposed) {
    const available = surface.tools.map((tool) => tool.name);
    return {
      parsed: parsed.ok,
      callArgs,
      routing: { kind: 'unknown_tool' },
      exposed: null,
      error: toolError('tool_not_found', `no tool named "${proposal.name}"; available tools: ${available.join(', ')}`, {
        available,
      }),
    };
  }
  const invalid = parsed.ok
    ? null
    : toolError('invalid_arguments', `arguments of ${exposed.name} must be a JSON object; got ${parsed.reason}`, {
        violations: [{ path: '', message: parsed.reason }],
      });
  const { mapping } = exposed;
  if (mapping.kind === 'identity') {
    return {
      parsed: parsed.ok,
      callArgs,
      routing: { kind: 'resolved', tool: exposed.tool, action: mapping.action, args: callArgs },
      exposed,
      error: invalid,
    };
  }
  if (!callArgs)
    return {
      parsed: false,
      callArgs,
      routing: { kind: 'unknown_action', tool: exposed.tool, selector: null },
      exposed,
      error: invalid,
    };
  const selector = callArgs[mapping.field];
  const action = typeof selector === 'string' && Object.hasOwn(mapping.map, selector) ? mapping.map[selector]! : null;
  if (action === null) {
    const allowed = Object.keys(mapping.map);
    return {
      parsed: true,
      callArgs,
      routing: { kind: 'unknown_action', tool: exposed.tool, selector: selector ?? null },
      exposed,
      error: {
        code: 'unknown_action',
        category: 'routing',
        message: `${exposed.name}: ${mapping.field} ${JSON.stringify(selector ?? null)} is not one of ${allowed.join(', ')}`,
        retryable: false,
        details: { field: mapping.field, value: selector ?? null, allowed },
      },
    };
  }
  // Scoring reads the action's own arguments; for a wide tool they sit under `actions_by.arguments`.
  const args = mapping.arguments === null ? callArgs : (callArgs[mapping.arguments] ?? null);
  return {
    parsed: true,
    callArgs,
    routing: { kind: 'resolved', tool: exposed.tool, action, args },
    exposed,
    error: null,
  };
}
