import { z } from 'zod';
import { defineDomain, fail } from '../../src/registry/index.ts';
import type { ToolSpec } from '../../src/registry/index.ts';
import { RuntimeContract, toolError } from '../../src/spec/index.ts';
import type { ActionSpec } from '../../src/spec/index.ts';
import { archivedItems, liveItems, type Item } from './fixture.ts';

/**
 * The bench's generated suite runs against this domain (the generated
 * `suites/bench/domain.ts` re-exports it). Five narrow tools with real
 * contracts (permission, approval, idempotency) plus one multiplexed wide
 * tool, so replayed trials exercise every step of the registry pipeline.
 * Handlers are synchronous and never sleep: the bench measures the
 * framework, not a simulated backend.
 */

export interface BenchState {
  items: Map<string, Item>;
  archive: Map<string, Item>;
  notes: { item_id: string; note: string; change_id: string | null }[];
}

const ItemId = z
  .string()
  .regex(/^I-\d{3}$/, 'an item id such as I-007')
  .describe('Item ID such as I-007.');
const Note = z.string().min(1).max(500).describe('The note text, exactly as it should be stored.');
const Status = z.enum(['open', 'waiting', 'closed']);
const ItemOutput = z.strictObject({ id: z.string(), name: z.string(), status: Status });
const read = RuntimeContract.parse({ permission: 'item:read', effect: 'read' });

function notFound(id: string) {
  return fail(
    toolError('not_found', `No item ${id} in the live store; older items are in the archive.`, { item_id: id }),
  );
}

const getItem: ToolSpec<BenchState> = {
  name: 'item.get',
  description: 'Read one live item by ID. Read-only.',
  input: z.strictObject({ item_id: ItemId }),
  output: ItemOutput,
  runtime: read,
  handler: ({ item_id }: { item_id: string }, { state }) => state.items.get(item_id) ?? notFound(item_id),
};

const lookupArchive: ToolSpec<BenchState> = {
  name: 'item.lookup_archive',
  description: 'Read one archived item by ID (items no longer in the live store). Read-only.',
  input: z.strictObject({ item_id: ItemId }),
  output: ItemOutput,
  runtime: read,
  handler: ({ item_id }: { item_id: string }, { state }) =>
    state.archive.get(item_id) ?? fail(toolError('not_found', `No archived item ${item_id}.`, { item_id })),
};

const listItems: ToolSpec<BenchState> = {
  name: 'item.list',
  description: 'List live items, optionally only those with one status, at most `limit` (default 5).',
  input: z.strictObject({ status: Status.optional(), limit: z.number().int().min(1).max(10).default(5) }),
  output: z.strictObject({ items: z.array(ItemOutput) }),
  runtime: read,
  handler: (input: { status?: Item['status']; limit: number }, { state }) => ({
    items: [...state.items.values()]
      .filter((item) => !input.status || item.status === input.status)
      .slice(0, input.limit),
  }),
};

const previewNote: ToolSpec<BenchState> = {
  name: 'note.preview',
  description: 'Preview a note on an item without writing it.',
  input: z.strictObject({ item_id: ItemId, note: Note }),
  output: z.strictObject({ item_id: z.string(), would_add: z.string() }),
  runtime: read,
  handler: ({ item_id, note }: { item_id: string; note: string }, { state }) =>
    state.items.has(item_id) ? { item_id, would_add: note } : notFound(item_id),
};

const recordNote: ToolSpec<BenchState> = {
  name: 'note.record',
  description:
    'Add a note to an item. Writes; needs approval of this exact note (preview it first). Idempotent by change_id.',
  input: z.strictObject({
    item_id: ItemId,
    note: Note,
    change_id: z.string().min(4).describe('A unique id for this one write.'),
  }),
  output: z.strictObject({ item_id: z.string(), status: z.literal('recorded'), notes: z.number().int() }),
  runtime: RuntimeContract.parse({
    permission: 'item:write',
    effect: 'write',
    approval: 'required',
    idempotency_key: 'change_id',
  }),
  handler: (input: { item_id: string; note: string; change_id: string }, { state, signal, recordEffect }) => {
    if (!state.items.has(input.item_id)) return notFound(input.item_id);
    signal.throwIfAborted();
    state.notes.push({ item_id: input.item_id, note: input.note, change_id: input.change_id });
    recordEffect({ action: 'note.record', effect: 'write', target: input.item_id, change_id: input.change_id });
    return { item_id: input.item_id, status: 'recorded' as const, notes: state.notes.length };
  },
};

/** The contract-less wide tool: no permission, no approval, generic errors. */
const itemOperation: ToolSpec<BenchState> = {
  name: 'item.operation',
  description: 'Do anything with items. operation: get, archive, list, preview or record; payload: its arguments.',
  input: z.object({ operation: z.string(), payload: z.record(z.string(), z.unknown()).optional() }),
  output: z.unknown(),
  runtime: RuntimeContract.parse({ permission: null, effect: 'write', approval: 'never', idempotency_key: null }),
  handler: (input: { operation: string; payload?: Record<string, unknown> }, { state, recordEffect }) => {
    const payload = input.payload ?? {};
    const id = String(payload.item_id);
    const generic = () => fail(toolError('tool_failed', 'tool failed'));
    switch (input.operation) {
      case 'get':
        return state.items.get(id) ?? generic();
      case 'archive':
        return state.archive.get(id) ?? generic();
      case 'list':
        return { items: [...state.items.values()].filter((item) => !payload.status || item.status === payload.status) };
      case 'preview':
        return state.items.has(id) ? { item_id: id, would_add: String(payload.note ?? '') } : generic();
      case 'record': {
        if (!state.items.has(id)) return generic();
        const changeId = typeof payload.change_id === 'string' ? payload.change_id : null;
        state.notes.push({ item_id: id, note: String(payload.note ?? ''), change_id: changeId });
        recordEffect({ action: 'note.record', effect: 'write', target: id, change_id: changeId });
        return { status: 'done' };
      }
      default:
        return generic();
    }
  },
};

const actions: ActionSpec[] = [
  {
    id: 'item.get',
    description: 'Read one live item.',
    effect: 'read',
    permission: 'item:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'item.lookup_archive',
    description: 'Read one archived item.',
    effect: 'read',
    permission: 'item:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'item.list',
    description: 'List live items.',
    effect: 'read',
    permission: 'item:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'note.preview',
    description: 'Preview a note.',
    effect: 'read',
    permission: 'item:read',
    approval: 'never',
    idempotency_key: null,
  },
  {
    id: 'note.record',
    description: 'Add a note to an item.',
    effect: 'write',
    permission: 'item:write',
    approval: 'required',
    idempotency_key: 'change_id',
    preview: 'note.preview',
  },
];

// Items never change (only notes are written), so trials share frozen item objects.
const LIVE: readonly [string, Item][] = liveItems().map((item) => [item.id, Object.freeze(item)]);
const ARCHIVE: readonly [string, Item][] = archivedItems().map((item) => [item.id, Object.freeze(item)]);

/** Fresh backend for one trial: its own maps and notes. */
function createBenchState(): BenchState {
  return { items: new Map(LIVE), archive: new Map(ARCHIVE), notes: [] };
}

/** The bench domain (name `bench`). */
export const benchDomain = defineDomain<BenchState>({
  name: 'bench',
  description: 'Generated inventory domain used by scripts/bench.ts.',
  actions,
  tools: [getItem, lookupArchive, listItems, previewNote, recordNote, itemOperation],
  createState: createBenchState,
  views: {
    note_count: (state) => state.notes.length,
    notes: (state) => {
      const byItem: Record<string, string[]> = {};
      for (const entry of state.notes) (byItem[entry.item_id] ??= []).push(entry.note);
      return byItem;
    },
  },
});

export default benchDomain;
