import { fileURLToPath } from 'node:url';

// Global (Symbol.for): a domain may import another installed copy of toolmark
// than the CLI reading it, so every copy reads and writes `{ file, line }`
// under this one key (here through a getter: see DefinitionSite).
const DEFINED_AT = Symbol.for('toolmark.defined-at');

/** Where a tool or domain was defined: the file and line of the `defineTool` / `defineDomain` call. */
export interface DefinedAt {
  file: string;
  line: number;
}

// The TypeScript (a checkout), and compiled: tsc's files or the bundle's shared chunks (scripts/build.js).
const OWN_FRAMES =
  /[\\/]src[\\/]registry[\\/](define-tool|domain|defined-at)\.ts|[\\/]dist[\\/]src[\\/](registry[\\/](define-tool|domain|defined-at)|chunks[\\/][^\\/]+)\.js/;

/**
 * The caller's file and line, read off a stack trace (source-mapped under
 * tsx or for a transpiled domain, so lines are the TypeScript source's);
 * null when the stack says nothing usable.
 */
function callSite(stack: string): DefinedAt | null {
  for (const frame of stack.split('\n').slice(1)) {
    if (OWN_FRAMES.test(frame) || frame.includes('node:')) continue;
    const match = /\(?((?:file:\/\/)?[^()\s]+):(\d+):\d+\)?\s*$/.exec(frame);
    if (!match) continue;
    const file = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!;
    return { file, line: Number(match[2]) };
  }
  return null;
}

/**
 * Where a definition was made, read when asked. The trace is captured at the
 * definition (V8 records its frames then) but formatted only on the first
 * read of its `stack`: formatting maps every frame through the source maps,
 * which cost ~3–4 % of `validate`'s main thread when done for each
 * `defineTool` at import, while only an issue about a definition reads it.
 */
class DefinitionSite {
  readonly #trace: { stack?: string } = {};
  #site: DefinedAt | null | undefined;
  constructor() {
    Error.captureStackTrace(this.#trace);
  }
  get(): DefinedAt | null {
    if (this.#site === undefined) this.#site = callSite(this.#trace.stack ?? '');
    return this.#site;
  }
}

/** Remember where `target` is being defined (a hidden property: copies, JSON and equality ignore it). */
export function markDefinedAt<T extends object>(target: T): T {
  if (Object.isExtensible(target) && !Object.hasOwn(target, DEFINED_AT)) {
    const site = new DefinitionSite();
    Object.defineProperty(target, DEFINED_AT, { get: () => site.get() ?? undefined, enumerable: false });
  }
  return target;
}

/** Where `target` was defined, if `defineTool`/`defineDomain` saw it. */
export function definedAt(target: unknown): DefinedAt | undefined {
  return typeof target === 'object' && target !== null
    ? ((target as Record<symbol, DefinedAt | undefined>)[DEFINED_AT] ?? undefined)
    : undefined;
}
