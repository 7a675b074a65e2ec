import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { ServerEndpoint } from './session.ts';

/** The `server:` section of an MCP `domain.yaml` (docs/domain-yaml.md). */
export const McpServerConfig = z
  .strictObject({
    /** stdio: the command to start, its arguments, extra environment and working folder. */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    /** Streamable HTTP: the endpoint and request headers (values may only name environment variables: `{env:NAME}`). */
    url: z.string().url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    /** A fresh temporary folder per trial, `{workdir}` in args, env and cwd. */
    workdir: z
      .strictObject({
        /** Folder copied into each trial's workdir first (relative to the domain folder). */
        seed: z.string().optional(),
        /** The path the model sees instead of the temporary one (results and arguments are rewritten). */
        shown_as: z.string().startsWith('/').optional(),
      })
      .optional(),
    /** Sessions (server processes, for stdio) open at once. */
    max_sessions: z.number().int().positive().default(4),
    start_timeout_ms: z.number().int().positive().default(30_000),
  })
  .refine((config) => (config.command === undefined) !== (config.url === undefined), {
    message: 'a server needs exactly one of `command` (stdio) or `url` (streamable HTTP)',
  });
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** Values a placeholder can take when a server is started. */
export interface PlaceholderValues {
  /** The domain folder (`{dir}`); packages are resolved from it. */
  dir: string;
  /** This trial's temporary folder (`{workdir}`), when the server declares one. */
  workdir?: string;
  env: NodeJS.ProcessEnv;
}

/** The executable script of an installed package's (only or same-named) bin. */
function packageBin(name: string, from: string): string {
  const require = createRequire(join(from, 'package.json'));
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: string | Record<string, string> };
  const bin =
    typeof manifest.bin === 'string'
      ? manifest.bin
      : manifest.bin
        ? Object.values(manifest.bin).length === 1
          ? Object.values(manifest.bin)[0]
          : manifest.bin[name.split('/').pop()!]
        : undefined;
  if (!bin) throw new Error(`package ${name} has no single bin to start`);
  return resolve(dirname(manifestPath), bin);
}

/**
 * Expand `{dir}`, `{workdir}`, `{env:NAME}` and `{package:NAME}` in one
 * value. An unset variable or a missing package throws: a server started
 * with half its configuration would fail in a stranger way later.
 */
export function expandPlaceholders(text: string, values: PlaceholderValues): string {
  return text.replace(/\{(dir|workdir|env:[A-Za-z_][A-Za-z0-9_]*|package:[^}]+)\}/g, (_match, token: string) => {
    if (token === 'dir') return values.dir;
    if (token === 'workdir') {
      if (values.workdir === undefined) throw new Error('{workdir} is used but the server declares no `workdir:`');
      return values.workdir;
    }
    if (token.startsWith('env:')) {
      const value = values.env[token.slice(4)];
      if (value === undefined) throw new Error(`environment variable ${token.slice(4)} is not set`);
      return value;
    }
    return packageBin(token.slice('package:'.length), values.dir);
  });
}

/** The endpoint for one session, every placeholder expanded. */
export function resolveEndpoint(config: McpServerConfig, values: PlaceholderValues): ServerEndpoint {
  const expand = (text: string) => expandPlaceholders(text, values);
  if (config.url !== undefined) {
    return {
      kind: 'http',
      url: expand(config.url),
      headers: Object.fromEntries(Object.entries(config.headers).map(([name, value]) => [name, expand(value)])),
    };
  }
  return {
    kind: 'stdio',
    // `node` means this very Node, whatever PATH holds.
    command: config.command === 'node' ? process.execPath : expand(config.command!),
    args: config.args.map(expand),
    env: Object.fromEntries(Object.entries(config.env).map(([name, value]) => [name, expand(value)])),
    cwd: config.cwd === undefined ? undefined : resolve(values.dir, expand(config.cwd)),
  };
}

/** Header values must come from the environment, so no secret is ever written in a domain file. */
export function literalHeaderValues(config: McpServerConfig): string[] {
  return Object.entries(config.headers)
    .filter(([, value]) => !/\{env:[A-Za-z_][A-Za-z0-9_]*\}/.test(value))
    .map(([name]) => name);
}
