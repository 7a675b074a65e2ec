import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { parseWithJsYaml, type FastParse } from './fast-yaml.ts';
import { parsePlain } from './plain-yaml.ts';

/**
 * The parse of a large suite file, kept between processes (issue 20).
 *
 * js-yaml reads 10,000 generated tasks in ~0.25–0.5 s of CPU, the largest
 * part of loading them; the same values read back with `v8.deserialize` take
 * ~15–40 ms. A suite is loaded again and again unchanged (`run`, `validate`,
 * `report --rescore`, the next run), so a file's parse is stored once, keyed
 * by its path, and used while its text and the parser are the same. Small
 * files (every hand-written one) parse faster than a cache lookup and are
 * never stored; nor are files the plain reader reads (src/load/plain-yaml.ts:
 * generated suites, ~5 ms per 1,000 tasks), for which storing an entry on a
 * fresh machine costs more than reading one saves later.
 *
 * An entry holds the SHA-256 of the parser's version and the whole text; any
 * other text (an edit, a different js-yaml) misses, is parsed, and replaces
 * the entry. Entries are written to a temporary file and renamed, so two
 * processes never read half an entry; one that cannot be read is a miss.
 * The folder is private to the user (0700, owned by them): an entry is only
 * ever read from a folder no one else can write.
 */

/** Files shorter than this (in UTF-16 units) are parsed, never cached. */
export const CACHE_MIN_LENGTH = 64 * 1024;

/** Bump when parseWithJsYaml's output changes for the same text. */
const FORMAT = 1;

let parserVersion: string | undefined;
function version(): string {
  parserVersion ??= `${FORMAT}:js-yaml@${(createRequire(import.meta.url)('js-yaml/package.json') as { version: string }).version}`;
  return parserVersion;
}

/**
 * The folder entries go in: `TOOLMARK_CACHE_DIR`, else `toolmark-<uid>` in
 * the system's temporary folder; `TOOLMARK_CACHE_DIR=off` turns caching off.
 */
export function defaultCacheDir(): string | null {
  const chosen = process.env.TOOLMARK_CACHE_DIR;
  if (chosen === 'off') return null;
  return chosen || join(tmpdir(), `toolmark-${process.getuid?.() ?? 'user'}`, 'parse');
}

/** The folder when it is ours and private, created if missing; null when it cannot be trusted or made. */
export function privateFolder(dir: string): string | null {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = statSync(dir);
    const uid = process.getuid?.();
    if (uid !== undefined && (info.uid !== uid || (info.mode & 0o022) !== 0)) return null;
    return dir;
  } catch {
    return null;
  }
}

interface Entry {
  key: string;
  value: unknown;
  offsets: [string, number[]][];
}

/**
 * `parseFast(text)` for the file at `path`: the plain reader's parse, else js-yaml's from the cache in `dir` when the
 * entry there was made from the same text by the same parser.
 */
export function cachedParseFast(path: string, text: string, dir: string | null = defaultCacheDir()): FastParse | null {
  // The plain reader (src/load/plain-yaml.ts) reads a generated file faster than its entry could be hashed, read and
  // deserialized; only what it refuses, js-yaml's parses, is worth storing.
  const plain = parsePlain(text);
  if (plain !== null) return plain;
  const folder = text.length >= CACHE_MIN_LENGTH && dir !== null ? privateFolder(dir) : null;
  if (folder === null) return parseWithJsYaml(text);
  const key = createHash('sha256').update(version()).update('\0').update(text).digest('hex');
  const file = join(folder, `${createHash('sha256').update(path).digest('hex')}.v8`);
  try {
    const entry = deserialize(readFileSync(file)) as Entry;
    if (entry.key === key) return { value: entry.value, itemOffsets: new Map(entry.offsets) };
  } catch {
    // No entry yet, or one that cannot be read: parse.
  }
  const parsed = parseWithJsYaml(text);
  // A file js-yaml refuses is read by `yaml` every time; that is the slow, rare path.
  if (parsed === null) return null;
  const entry: Entry = { key, value: parsed.value, offsets: [...parsed.itemOffsets] };
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, serialize(entry), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // A full or read-only disk only costs the next load the parse.
  }
  return parsed;
}
