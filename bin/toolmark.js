#!/usr/bin/env node
// Launcher: registers tsx so the CLI and user-written TypeScript domain
// modules run without a build step, then hands over to the real entry point.
import { register } from 'tsx/esm/api';
import { preloadPlainModules } from './preload.js';

const args = process.argv.slice(2);
await preloadPlainModules(args.find((arg) => !arg.startsWith('-')), args);

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(args);
