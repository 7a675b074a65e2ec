import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongPolesFirst } from './test/helpers/long-poles-first.ts';

export default defineConfig({
  // The shipped example imports the package by name, as a user's domain does.
  resolve: { alias: { toolmark: fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    // Limits, not expectations: many tests start a real CLI process, which takes
    // seconds each on a loaded machine (load average 20+ on 2 cores was seen).
    // A slow machine must make the suite slower, never red (issue 14, item 7).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: a single worker on a
    // 2-core machine, which then sits idle while a test waits on a child
    // process, a local server or npm. Most of the long files wait like that, so
    // four run side by side (docs/contributing.md, "Test speed").
    maxWorkers: 4,
    sequence: { sequencer: LongPolesFirst },
  },
});
