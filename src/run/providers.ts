import path from 'node:path';
import { createProviders, parseProviderSpec } from '../../providers/index.ts';
import { DEFAULT_CASSETTES } from '../../providers/kinds/replay.ts';
import { dropPrefetchedCassettes, prefetchCassettes } from '../../providers/replay/cassette-prefetch.ts';
import { loadConfig } from '../load/config.ts';
import { withoutCredentials } from '../../providers/http/base-url.ts';
import { limitResponseSize } from '../../providers/response-limit.ts';
import { createCassetteWriter, recordingProvider } from '../../providers/recording.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, type ProjectConfig, type Provider, type RunSelection } from '../spec/index.ts';
import { checkWritable } from './writable.ts';

/** A provider of the run, with what the manifest and the tool-time choice need to know of it. */
export interface RunProvider {
  /** The spec it came from, as given (`replay`, `openai:gpt-4.1-mini`, a preset). */
  spec: string;
  provider: Provider;
  /** Its answers are synthetic fixtures, not a model's (the reports say so). */
  synthetic: boolean;
  /** Replay or scripted: no live model behind it. */
  offline: boolean;
  /** Where a live provider sends its requests (without credentials); absent for offline ones. */
  baseURL?: string;
}

/** Parse and create every provider of a selection (keys checked, nothing called), wrapped for recording when `record` is a cassette path. */
export async function createRunProviders(
  selection: RunSelection,
  options: { config: ProjectConfig; root: string; env: NodeJS.ProcessEnv; record?: string; allowStale: boolean },
): Promise<RunProvider[]> {
  if (options.record) checkWritable('--record', path.resolve(options.record), 'file');
  const writer = options.record ? createCassetteWriter(path.resolve(options.record)) : null;
  const providers: RunProvider[] = [];
  for (const text of selection.providers) {
    const spec = parseProviderSpec(text, options.config.providers);
    for (const provider of await createProviders(spec, {
      config: options.config,
      env: options.env,
      root: options.root,
      allowStale: options.allowStale,
    })) {
      const maxBytes = options.config.run.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      // A live answer is cut to the size limit before the recorder sees it (replay reads what was recorded).
      const limited = provider.offline ? provider : limitResponseSize(provider, maxBytes);
      // Declared capabilities (Provider.synthetic, Provider.offline), never guessed from the spec.
      providers.push({
        // Shown and stored (manifest, messages): never a URL's credentials.
        spec: withoutCredentials(text),
        provider: writer ? recordingProvider(limited, writer) : limited,
        synthetic: provider.synthetic === true,
        offline: provider.offline === true,
        ...(provider.baseURL !== undefined ? { baseURL: provider.baseURL } : {}),
      });
    }
  }
  return providers;
}

/**
 * Start reading the cassettes of the run's replay provider on the second
 * core while the project loads (providers/replay/cassette-prefetch.ts).
 * Anything this cannot resolve (no config, a bad spec) is left to the
 * run, which reports it in its place.
 */
export async function prefetchRunCassettes(root: string, asked: readonly string[] | undefined): Promise<void> {
  try {
    const { config } = await loadConfig(root, []);
    for (const text of asked?.length ? asked : config.run.providers) {
      const spec = parseProviderSpec(text, config.providers);
      if (spec.kind === 'replay') {
        prefetchCassettes(spec.paths.length > 0 ? spec.paths : [DEFAULT_CASSETTES], root);
        break;
      }
    }
  } catch {
    // The run reads the config and the specs again, and says what is wrong with them.
  }
}

export { dropPrefetchedCassettes };

/**
 * `auto` tool time: simulated when no provider talks to a live model and no
 * cassette is recorded (a replay has nothing to wait for), else real.
 */
export function resolveToolTime(
  asked: RunSelection['tool_time'],
  providers: readonly RunProvider[],
  recording: boolean,
): 'real' | 'simulated' {
  if (asked === 'real' || asked === 'simulated') return asked;
  return !recording && providers.every((entry) => entry.offline) ? 'simulated' : 'real';
}
