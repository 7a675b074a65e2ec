import type { Domain } from '../../registry/domain.ts';
import { fail } from '../../registry/index.ts';
import { anyValueSchema } from '../../registry/schema/index.ts';
import type { ToolSpec } from '../../registry/tool-spec.ts';
import { matchFields } from '../../score/constraint.ts';
import type { ActionSpec, DomainFile, Json } from '../../spec/index.ts';
import { errorTable, fixtureError, runtimeOf, type ResolvedDefinition } from '../tool-definition.ts';
import { applyStoreOperation, collectionView, createRecordStore, type RecordStore } from './record-store.ts';

const ANYTHING = anyValueSchema();

/**
 * A declarative domain (docs/domain-yaml.md): one registry tool per action,
 * whose behaviour is its fixtures (first match wins), then its store
 * operation, else `{}`. State is a fresh record store per trial; every
 * collection is a final_state view.
 */
export function declarativeDomain(
  file: DomainFile,
  definitions: ReadonlyMap<string, ResolvedDefinition>,
): Domain<RecordStore> {
  const table = errorTable(file.errors);
  const tools: ToolSpec<RecordStore>[] = file.actions.map((action) => {
    const definition = definitions.get(action.id)!;
    return {
      name: action.id,
      description: definition.description,
      input: definition.input,
      output: definition.output ?? ANYTHING,
      runtime: runtimeOf(action),
      handler(input: Record<string, Json>, { state, recordEffect }) {
        for (const response of action.responses) {
          if (!matchFields(response.when, input).pass) continue;
          return response.error ? fail(fixtureError(table, response.error)) : response.output!;
        }
        if (!action.store) return {};
        const outcome = applyStoreOperation(state, action.store, input);
        if ('error' in outcome) return fail(outcome.error);
        if (outcome.wrote !== null && action.effect !== 'read') {
          const key = action.idempotency_key !== null ? input[action.idempotency_key] : undefined;
          recordEffect({
            action: action.id,
            effect: action.effect,
            target: action.target !== undefined ? String(input[action.target]) : outcome.wrote,
            change_id: key === undefined ? null : String(key),
          });
        }
        return outcome.output;
      },
    };
  });
  const collections = Object.keys(file.store);
  for (const action of file.actions)
    if (action.store && !collections.includes(action.store.collection)) collections.push(action.store.collection);
  return {
    name: file.name,
    description: file.description,
    actions: file.actions.map(actionSpec(definitions)),
    tools,
    createState: () => createRecordStore(file.store),
    views: Object.fromEntries(
      collections.map((collection) => [collection, (state: RecordStore) => collectionView(state, collection)]),
    ),
  };
}

/** The action as the rest of toolmark sees it (SPEC §2). */
export function actionSpec(definitions: ReadonlyMap<string, ResolvedDefinition>) {
  return (action: DomainFile['actions'][number]): ActionSpec => ({
    id: action.id,
    description: definitions.get(action.id)?.description ?? action.description ?? '',
    effect: action.effect,
    permission: action.permission,
    approval: action.approval,
    idempotency_key: action.idempotency_key,
    ...(action.preview !== undefined ? { preview: action.preview } : {}),
  });
}
