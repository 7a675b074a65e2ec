import type { ImportedTool, JsonSchema } from '../spec/index.ts';

/** One tool as the scaffold writes it: what the model sees, and a first guess at its effect. */
export interface ScaffoldTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** Guessed from the name (create/update/delete/send… → write); the user checks it. */
  effect: 'read' | 'write';
}

const WRITE_VERB =
  /^(add|append|book|cancel|create|delete|edit|insert|move|patch|post|put|record|remove|reschedule|send|set|submit|update|upsert|write)(_|-|[A-Z]|$)/;

/** A tool read from an OpenAI or Anthropic tools file, ready to scaffold. */
export function fromImported(tool: ImportedTool): ScaffoldTool {
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? `The ${tool.name} tool.`,
    inputSchema: tool.inputSchema,
    effect: WRITE_VERB.test(tool.name) || tool.annotations?.readOnlyHint === false ? 'write' : 'read',
  };
}

/** The template's two tools, when no tools file is given: a search and a get, the usual near-synonym pair. */
export const TEMPLATE_TOOLS: ScaffoldTool[] = [
  {
    name: 'search_notes',
    description: 'Search notes by words in their title or text. Returns matching note IDs and titles.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Words to look for.' } },
      required: ['query'],
      additionalProperties: false,
    },
    effect: 'read',
  },
  {
    name: 'get_note',
    description: 'Read one note by its ID, such as N-1.',
    inputSchema: {
      type: 'object',
      properties: { note_id: { type: 'string', description: 'Note ID such as N-1.' } },
      required: ['note_id'],
      additionalProperties: false,
    },
    effect: 'read',
  },
];
