import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ConfigIssue } from '../spec/index.ts';
import { packageRoot } from './package-root.ts';

// Compiled (an installed toolmark runs dist/*.js), nothing can import
// TypeScript by itself; from source (this repository, tests) tsx or vitest
// already does it. Compiled, a user's module is transpiled in this thread
// into the module cache (src/load/transpiled-module.ts); what that does not
// take goes through tsx's loader, registered on the first such module.
const COMPILED = !import.meta.url.endsWith('.ts');
let loader: Promise<void> | null = null;

async function ensureTypeScriptLoader(): Promise<void> {
  if (!COMPILED) return;
  loader ??= import('tsx/esm/api').then(({ register }) => {
    register();
  });
  await loader;
}

/** Failures of resolving and linking a module graph: raised before any of its code ran. */
const LINK_ERRORS = new Set([
  'ERR_MODULE_NOT_FOUND',
  'ERR_UNSUPPORTED_DIR_IMPORT',
  'ERR_UNKNOWN_FILE_EXTENSION',
  'ERR_IMPORT_ATTRIBUTE_MISSING',
  'ERR_IMPORT_ATTRIBUTE_TYPE_INCOMPATIBLE',
  'ERR_IMPORT_ASSERTION_TYPE_MISSING',
]);

/**
 * The import failed resolving or linking the graph (a missing export is a
 * SyntaxError from node's loader), before any of its code ran: no stack
 * frame is in one of its files (the header of a SyntaxError names the file
 * it points at; a frame is code that ran).
 */
function failedBeforeRunning(error: unknown, files: string[]): boolean {
  const linking =
    LINK_ERRORS.has((error as NodeJS.ErrnoException | undefined)?.code ?? '') || error instanceof SyntaxError;
  const frames = (error instanceof Error ? (error.stack ?? '') : '').split('\n').filter((line) => /^\s+at /.test(line));
  return linking && !frames.some((frame) => files.some((file) => frame.includes(file)));
}

/** A TypeScript module, compiled: from the module cache, else (or when its graph does not link) through tsx. */
async function importTypeScript(file: string): Promise<{ default?: unknown }> {
  const { transpiledModuleUrl } = await import('./transpiled-module.ts');
  const transpiled = await transpiledModuleUrl(file);
  if (transpiled !== null) {
    // As tsx does: stack frames of the cached module point at the user's .ts file.
    process.setSourceMapsEnabled(true);
    try {
      return (await import(transpiled.url)) as { default?: unknown };
    } catch (error) {
      // tsx then reports it as it always has, with the user's paths.
      if (!failedBeforeRunning(error, transpiled.files)) throw error;
    }
  }
  await ensureTypeScriptLoader();
  return (await import(pathToFileURL(file).href)) as { default?: unknown };
}

/** Import a user's module (a domain.ts, a grader): TypeScript or JavaScript. */
export async function importUserModule(file: string): Promise<{ default?: unknown }> {
  if (COMPILED && /\.[cm]?tsx?$/.test(file)) return importTypeScript(file);
  return (await import(pathToFileURL(file).href)) as { default?: unknown };
}

interface Location {
  file: string;
  line: number;
  column?: number;
}

const TRANSFORM_ERROR = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m;
const NOT_FOUND = /^Cannot find (?:module|package) '([^']+)' imported from (.+)$/;
const SYNTAX_HEADER = /^(\/.+|[A-Za-z]:\\.+|file:\/\/.+):(\d+)$/m;
const STACK_FRAME = /(?:\(|^at )((?:file:\/\/)?\/[^():]+|[A-Za-z]:\\[^():]+):(\d+):(\d+)\)?$/;

function toPath(text: string): string {
  return text.startsWith('file://') ? fileURLToPath(text) : text;
}

function readLines(file: string): string[] | null {
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/);
  } catch {
    return null;
  }
}

/** Where in the user's code the error points, and its message without the location prefix. */
function locate(error: unknown, importedFile: string): { location: Location | null; message: string } {
  const text = error instanceof Error ? error.message : String(error);
  const transform = TRANSFORM_ERROR.exec(text);
  if (transform)
    return {
      location: { file: transform[1]!, line: Number(transform[2]), column: Number(transform[3]) },
      message: transform[4]!,
    };

  const notFound = NOT_FOUND.exec(text);
  if (notFound) {
    // The resolver names the importing file but not the line: find the import there.
    const [, target, from] = notFound;
    const importer = toPath(from!);
    const wanted =
      target!.startsWith('/') || target!.startsWith('file:')
        ? toPath(target!)
            .split('/')
            .pop()!
            .replace(/\.[cm]?[jt]sx?$/, '')
        : target!;
    const lines = readLines(importer) ?? [];
    const index = lines.findIndex((line) => /\bfrom\s|import\s*\(|^\s*import\s/.test(line) && line.includes(wanted));
    return {
      location:
        index >= 0
          ? { file: importer, line: index + 1, column: lines[index]!.indexOf(wanted) + 1 }
          : { file: importer, line: 1 },
      message: text,
    };
  }

  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const syntax = error instanceof SyntaxError ? SYNTAX_HEADER.exec(stack) : null;
  if (syntax) {
    const caret = stack.split('\n').find((line) => /^\s*\^+\s*$/.test(line));
    return {
      location: {
        file: toPath(syntax[1]!),
        line: Number(syntax[2]),
        column: caret ? caret.indexOf('^') + 1 : undefined,
      },
      message: text,
    };
  }
  // A throw while the module ran: the first frame in user code (not toolmark's, not node's).
  for (const frame of stack.split('\n').slice(1)) {
    const match = STACK_FRAME.exec(frame.trim());
    if (!match) continue;
    const file = toPath(match[1]!);
    // A package's frame is not the user's, unless the module itself sits under a node_modules folder.
    if ((file.includes('/node_modules/') && !file.startsWith(dirname(importedFile))) || !isAbsolute(file)) continue;
    // Nor is toolmark's compiled code (its own throw, e.g. at a refused process.exit), wherever it is installed.
    if (COMPILED && file.startsWith(join(packageRoot(), 'dist', sep))) continue;
    return {
      location: { file, line: Number(match[2]), column: Number(match[3]) },
      message: `${error instanceof Error ? error.name : 'Error'}: ${text}`,
    };
  }
  return { location: { file: importedFile, line: 1 }, message: text };
}

/** The offending line with a caret under the column, as a compiler prints it. */
function codeFrame(location: Location): string {
  const source = readLines(location.file)?.[location.line - 1];
  if (source === undefined) return '';
  const gutter = String(location.line);
  const frame = [`  ${gutter} | ${source}`];
  if (location.column !== undefined && location.column > 0)
    frame.push(`  ${' '.repeat(gutter.length)} | ${' '.repeat(location.column - 1)}^`);
  return `\n${frame.join('\n')}`;
}

/**
 * A user's module failed to import (syntax, a missing import, a throw at load
 * time): one issue with file:line:col, the whole message, and the offending
 * line, instead of the first line of a loader's error.
 */
export function userModuleIssue(error: unknown, file: string, root: string, what: string): ConfigIssue {
  const { location, message } = locate(error, file);
  const where = location ?? { file, line: 1 };
  // esbuild counts columns from 0, stack frames and V8's caret from 1.
  const column =
    where.column === undefined
      ? undefined
      : where.column + (TRANSFORM_ERROR.test(error instanceof Error ? error.message : '') ? 1 : 0);
  const shown = { ...where, column };
  // A .ts file under a package.json without "type": "module" is loaded as CommonJS, and its imports then fail confusingly.
  const hint =
    (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_REQUIRE_CYCLE_MODULE' ||
    /require\(\) ES Module/.test(message)
      ? '\n  hint: domain files are ES modules; add {"type": "module"} to the package.json next to them (toolmark init writes suites/package.json)'
      : '';
  return {
    file: relative(root, where.file) || where.file,
    line: where.line,
    column,
    message: `${what}: ${message}${codeFrame(shown)}${hint}`,
  };
}
