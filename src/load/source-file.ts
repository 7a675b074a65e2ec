import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { createRequire } from 'node:module';
import type { Document, LineCounter, Node } from 'yaml';
import type { ConfigIssue } from '../spec/index.ts';
import { parseFast, type FastParse } from './fast-yaml.ts';
import { cachedParseFast } from './parse-cache.ts';
import { decodeSuiteText } from './text-encoding.ts';
import { withFileBytes } from './file-bytes.ts';

/** Files bigger than this are refused before parsing: no hand-written suite file is that large. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** Alias expansions allowed per file: enough for hand-written reuse, far too few for a "billion laughs" bomb. */
const MAX_ALIAS_COUNT = 100;

/** A path inside a parsed document, as zod reports it. */
export type FieldPath = readonly PropertyKey[];

/** The `yaml` document tree with a source range on every node, and the line table to turn an offset into a line. */
interface Tree {
  document: Document;
  lines: LineCounter;
}

/**
 * The `yaml` package, loaded the first time a file needs it: a file the fast
 * parses read (every valid generated suite) never does, and loading it costs
 * ~40 ms of CPU. Required synchronously, since positions are asked for
 * synchronously (SourceFile.position).
 */
let yamlPackage: typeof import('yaml') | undefined;
function yaml(): typeof import('yaml') {
  yamlPackage ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yamlPackage;
}

function parseWithPositions(text: string): Tree {
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  return { document: parseDocument(text, { lineCounter: lines, prettyErrors: false }), lines };
}

/**
 * One parsed YAML file with the means to turn a field path into a
 * `file:line:column` position, so every issue points at the offending text.
 *
 * A file js-yaml reads on its own (src/load/fast-yaml.ts) holds its plain
 * value and the offsets of its top-level list items only; the `yaml` tree
 * with every node's position is built the first time an issue needs one.
 */
export class SourceFile {
  #tree: Tree | null;
  readonly #fast: FastParse | null;
  /** Where lineOf stopped counting, and the line there. */
  #countedTo = 0;
  #countedLine = 1;
  #valueTaken = false;

  constructor(
    /** Path as shown to the user (relative to the project root). */
    readonly display: string,
    private readonly text: string,
    parsed: { fast: FastParse } | { tree: Tree },
  ) {
    this.#fast = 'fast' in parsed ? parsed.fast : null;
    this.#tree = 'tree' in parsed ? parsed.tree : null;
  }

  /** The plain JavaScript value of the document (checked once by readSourceFile, so this does not throw). */
  value(): unknown {
    if (!this.#fast) return this.#tree!.document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    // A fresh value on every call, as the tree gives: the first caller takes the parsed one (which it may change), later ones parse again.
    if (this.#valueTaken) return parseFast(this.text)!.value;
    this.#valueTaken = true;
    return this.#fast.value;
  }

  /** Line of item `index` of the top-level list `key` (each task's line), without building the tree when the fast parse knows it. */
  itemLine(key: string, index: number): number {
    const offset = this.#fast?.itemOffsets.get(key)?.[index];
    return offset === undefined ? this.position([key, index]).line : this.lineOf(offset);
  }

  private get tree(): Tree {
    this.#tree ??= parseWithPositions(this.text);
    return this.#tree;
  }

  /**
   * Line and column of the value at `path`; with `key`, of that key inside
   * the mapping at `path`. Falls back to the nearest existing ancestor, since
   * a missing field has no text of its own.
   */
  position(path: FieldPath, key?: string): { line: number; column: number } {
    const { document } = this.tree;
    const { isMap, isPair, isScalar } = yaml();
    if (key !== undefined) {
      const map = path.length === 0 ? document.contents : document.getIn(path as unknown[], true);
      if (isMap(map)) {
        const pair = map.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === key);
        const keyNode = pair?.key as Node | undefined;
        if (keyNode?.range) return this.at(keyNode.range[0]);
      }
    }
    for (let length = path.length; length >= 0; length--) {
      const node =
        length === 0
          ? document.contents
          : (document.getIn(path.slice(0, length) as unknown[], true) as Node | undefined);
      if (node && typeof node === 'object' && 'range' in node && node.range) return this.at(node.range[0]);
    }
    return { line: 1, column: 1 };
  }

  /** An issue located at `path` (or at `key` inside it). */
  issue(
    path: FieldPath,
    fields: Omit<ConfigIssue, 'file' | 'line' | 'column' | 'field'> & { key?: string },
  ): ConfigIssue {
    const { key, ...rest } = fields;
    const { line, column } = this.position(path, key);
    const fullPath = key === undefined ? path : [...path, key];
    return { file: this.display, line, column, field: formatFieldPath(fullPath) || undefined, ...rest };
  }

  private at(offset: number): { line: number; column: number } {
    const { line, col } = this.tree.lines.linePos(offset);
    return { line, column: col };
  }

  /**
   * 1-based line of an offset, as LineCounter counts lines (after each \n).
   *
   * A file's task lines are asked in the order of their offsets, so the
   * newlines are counted onwards from the last offset asked: one pass over
   * the text for all of them. A table of every line start and a binary
   * search per task cost ~20 ms of a 10,000-task load (the table, ~5,000
   * entries a file grown by push, is garbage once the file is read).
   */
  private lineOf(offset: number): number {
    if (offset < this.#countedTo) {
      this.#countedTo = 0;
      this.#countedLine = 1;
    }
    const text = this.text;
    let line = this.#countedLine;
    for (let at = text.indexOf('\n', this.#countedTo); at !== -1 && at < offset; at = text.indexOf('\n', at + 1))
      line++;
    this.#countedTo = offset;
    this.#countedLine = line;
    return line;
  }
}

/** `tasks[3].expect.action` from `['tasks', 3, 'expect', 'action']`. */
export function formatFieldPath(path: FieldPath): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text;
}

/**
 * Read and parse one YAML file. Syntax errors (including duplicate keys) and
 * oversized files become issues; the file is then `null`.
 */
export async function readSourceFile(path: string, root: string, issues: ConfigIssue[]): Promise<SourceFile | null> {
  const display = relative(root, path) || path;
  // Synchronous: a project's files are read one after another anyway, and each asynchronous
  // call is a round trip through the thread pool, slow on a busy machine (~0.1 ms to read 1,000 tasks).
  const info = statSync(path);
  // A FIFO would block the read forever; a folder cannot be read.
  if (!info.isFile()) {
    issues.push({ file: display, message: 'is not a regular file (a folder, FIFO, socket or device)' });
    return null;
  }
  if (info.size > MAX_FILE_BYTES) {
    issues.push({
      file: display,
      message: `file is ${(info.size / 1024 / 1024).toFixed(1)} MB, larger than the ${MAX_FILE_BYTES / 1024 / 1024} MB limit for suite files`,
      expected: 'a hand-written YAML file; split it into several files',
    });
    return null;
  }
  const text = withFileBytes(path, (bytes) => decodeSuiteText(bytes, display, issues));
  if (text === null) return null;
  const fast = cachedParseFast(path, text);
  if (fast) return new SourceFile(display, text, { fast });
  const tree = parseWithPositions(text);
  const { document, lines } = tree;
  if (document.errors.length > 0) {
    for (const error of document.errors) {
      const { line, col } = lines.linePos(error.pos[0]);
      issues.push({
        file: display,
        line,
        column: col,
        message: `YAML syntax error: ${error.message.split('\n')[0]!.replace(/:$/, '')}`,
      });
    }
    return null;
  }
  const source = new SourceFile(display, text, { tree });
  try {
    source.value();
  } catch (error) {
    // yaml throws (a ReferenceError) when aliases expand past the limit: bad input, not a crash.
    let offset = 0;
    const { visit } = yaml();
    visit(document, { Alias: (_key, node) => ((offset = node.range?.[0] ?? 0), visit.BREAK) });
    const { line, col } = lines.linePos(offset);
    issues.push({
      file: display,
      line,
      column: col,
      message: `YAML aliases expand too far (${(error as Error).message})`,
      expected: `at most ${MAX_ALIAS_COUNT} alias expansions per file`,
    });
    return null;
  }
  return source;
}
