import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The shipped example imports the package by name, as a user's domain does.
  resolve: { alias: { toolmark: fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Set-up that loads a project or starts a process takes seconds on a loaded machine.
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
