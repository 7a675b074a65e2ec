import type { CassetteKey, CassetteLine } from '../../src/spec/index.ts';

/** One cassette line of model `careful` answering `text` for `key` (a `trial: "*"` line unless `extra` says otherwise). */
export function answerLine(
  key: Omit<CassetteKey, 'trial'> & { trial?: CassetteKey['trial'] },
  text: string,
  extra: Partial<CassetteLine> = {},
): string {
  const line: CassetteLine = {
    v: 1,
    provider: 'openai',
    model: 'careful',
    key: { trial: '*', ...key },
    response: {
      text,
      tool_calls: [],
      usage: { input_tokens: 1, output_tokens: 1 },
      latency_ms: 0,
      finish_reason: 'stop',
      warnings: [],
    },
    ...extra,
  };
  return JSON.stringify(line);
}
