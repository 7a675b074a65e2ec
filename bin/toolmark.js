#!/usr/bin/env node
// Launcher: registers tsx so the CLI and user-written TypeScript domain
// modules run without a build step, then hands over to the real entry point.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
