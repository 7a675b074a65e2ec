#!/usr/bin/env node
// Launcher: registers tsx so the CLI and user-written TypeScript domain
// modules run without a build step, then hands over to the real entry point.
import { register } from 'tsx/esm/api';

// Every command (not bare `--help`) loads zod and yaml: ~100 plain-JavaScript
// modules. Imported before tsx is registered, they load through node's own
// loader instead of each taking a round trip through tsx's loader thread
// (about half the time); the TypeScript code then finds them in the module cache.
const args = process.argv.slice(2);
if (args.some((arg) => !arg.startsWith('-'))) await Promise.all([import('zod'), import('yaml')]);

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(args);
