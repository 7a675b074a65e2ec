import { fileURLToPath } from 'node:url';

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
 * tsx, so lines are the TypeScript source's). Costs one stack capture per
 * definition, at import; null when the stack says nothing usable.
 */
function callSite(): DefinedAt | null {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const frame of stack) {
    if (OWN_FRAMES.test(frame) || frame.includes('node:')) continue;
    const match = /\(?((?:file:\/\/)?[^()\s]+):(\d+):\d+\)?\s*$/.exec(frame);
    if (!match) continue;
    const file = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!;
    return { file, line: Number(match[2]) };
  }
  return null;
}

/** Remember where `target` is being defined (a hidden property: copies, JSON and equality ignore it). */
export function markDefinedAt<T extends object>(target: T): T {
  const site = callSite();
  if (site && Object.isExtensible(target) && !Object.hasOwn(target, DEFINED_AT))
    Object.defineProperty(target, DEFINED_AT, { value: site, enumerable: false });
  return target;
}

/** Where `target` was defined, if `defineTool`/`defineDomain` saw it. */
export function definedAt(target: unknown): DefinedAt | undefined {
  return typeof target === 'object' && target !== null
    ? ((target as Record<symbol, DefinedAt | undefined>)[DEFINED_AT] ?? undefined)
    : undefined;
}
