import { badSpec, type CreateProviderContext } from './kinds/kind.ts';
import { createProviders, type ProviderSpec } from './table.ts';
import type { Provider } from '../src/spec/index.ts';

/** Providers: the table of kinds (providers/table.ts), each kind's row in providers/kinds/, adapters beside them. */
export {
  PROVIDER_TABLE,
  parseProviderSpec,
  createProviders,
  providerKindOf,
  providerUsage,
  type ProviderSpec,
  type ProviderKindName,
} from './table.ts';
export { DEFAULT_CASSETTES } from './kinds/replay.ts';
export type { CreateProviderContext, ProviderKind } from './kinds/kind.ts';

/** The single provider a spec stands for; a replay spec holding several models is a ConfigError here. */
export async function createProvider(spec: ProviderSpec, context: CreateProviderContext): Promise<Provider> {
  const providers = await createProviders(spec, context);
  if (providers.length !== 1) {
    throw badSpec(
      spec.text,
      `this provider stands for ${providers.length} models (${providers.map((provider) => provider.model).join(', ')})`,
      'cassettes of one model (or use createProviders)',
    );
  }
  return providers[0]!;
}
