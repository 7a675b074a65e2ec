import type { ProviderKind } from './kind.ts';

export type ScriptedSpec = { kind: 'scripted'; text: string };

/** `scripted`: answers every request in text, without a call (a smoke test of the pipeline). */
export const scriptedKind: ProviderKind<ScriptedSpec> = {
  kind: 'scripted',
  usage: 'scripted',
  summary: 'answers in text without a tool call; offline',
  keyVariable: null,
  offline: true,
  defaultMaxTokens: null,
  parse: (_rest, text) => ({ kind: 'scripted', text }),
  async create() {
    const { ScriptedProvider } = await import('../scripted.ts');
    return [new ScriptedProvider(() => ({ text: 'scripted provider: no script given, so no tool call.' }))];
  },
};
