import type { Json, StoreOperation, ToolError } from '../../spec/index.ts';

/** Records of one trial, by collection and id: a fresh copy of the domain's `store:` per trial. */
export type RecordStore = Map<string, Map<string, Record<string, Json>>>;

/** A fresh store from the initial records (ids from each record's `id`, or its position). */
export function createRecordStore(initial: Record<string, Array<Record<string, Json>>>): RecordStore {
  const store: RecordStore = new Map();
  for (const [collection, records] of Object.entries(initial)) {
    store.set(
      collection,
      new Map(records.map((record, index) => [String(record.id ?? index + 1), structuredClone(record)])),
    );
  }
  return store;
}

/** What a store operation did: its output, or a structured error; and the record it wrote, if any. */
export type StoreOutcome = { output: Json; wrote: string | null } | { error: ToolError };

function notFound(collection: string, id: string): { error: ToolError } {
  return {
    error: {
      code: 'not_found',
      category: 'not_found',
      message: `No ${collection} record "${id}".`,
      retryable: false,
      details: { collection, id },
    },
  };
}

/**
 * Apply one action's store operation to validated arguments. `get` returns
 * the record, `list` the matching records, `create` / `update` the record
 * written, `delete` `{deleted: id}`.
 */
export function applyStoreOperation(
  store: RecordStore,
  operation: StoreOperation,
  args: Record<string, Json>,
): StoreOutcome {
  let records = store.get(operation.collection);
  if (!records) store.set(operation.collection, (records = new Map()));
  const idOf = () =>
    operation.id !== undefined && args[operation.id] !== undefined ? String(args[operation.id]) : null;
  switch (operation.op) {
    case 'get': {
      const id = idOf() ?? '';
      const record = records.get(id);
      return record ? { output: record, wrote: null } : notFound(operation.collection, id);
    }
    case 'list': {
      const where = Object.entries(operation.where ?? {}).filter(([, argument]) => args[argument] !== undefined);
      const items = [...records.values()].filter((record) =>
        where.every(([field, argument]) => record[field] === args[argument]),
      );
      return { output: { items, count: items.length }, wrote: null };
    }
    case 'create': {
      const id = idOf() ?? `${operation.collection.slice(0, 1).toUpperCase()}-${records.size + 1}`;
      if (records.has(id))
        return {
          error: {
            code: 'already_exists',
            category: 'conflict',
            message: `${operation.collection} record "${id}" already exists.`,
            retryable: false,
            details: { collection: operation.collection, id },
          },
        };
      const record = { id, ...args };
      records.set(id, record);
      return { output: record, wrote: `${operation.collection}/${id}` };
    }
    case 'update': {
      const id = idOf() ?? '';
      const record = records.get(id);
      if (!record) return notFound(operation.collection, id);
      Object.assign(record, args, { id: record.id ?? id });
      return { output: record, wrote: `${operation.collection}/${id}` };
    }
    case 'delete': {
      const id = idOf() ?? '';
      if (!records.delete(id)) return notFound(operation.collection, id);
      return { output: { deleted: id }, wrote: `${operation.collection}/${id}` };
    }
  }
}

/** A collection as a final_state view: its records in insertion order. */
export function collectionView(store: RecordStore, collection: string): Json {
  return [...(store.get(collection)?.values() ?? [])];
}
