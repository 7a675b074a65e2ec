import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Expand a path that may hold `*`, `?` or `**` segments into the matching
 * files, sorted (Node 20 has no fs.glob). A path without wildcards is
 * returned as is, existing or not, so the caller can name a missing file.
 */
export function expandGlob(pattern: string, root: string): string[] {
  const absolute = path.resolve(root, pattern);
  if (!/[*?]/.test(absolute)) return [absolute];
  const { root: fsRoot } = path.parse(absolute);
  const segments = absolute.slice(fsRoot.length).split(path.sep).filter(Boolean);
  const found = new Set<string>();
  walk(fsRoot, segments, found);
  return [...found].sort();
}

function walk(directory: string, segments: string[], found: Set<string>): void {
  if (segments.length === 0) {
    if (isFile(directory)) found.add(directory);
    return;
  }
  const [head, ...rest] = segments as [string, ...string[]];
  if (head === '**') {
    walk(directory, rest, found); // zero directories
    for (const entry of listDirectories(directory)) walk(path.join(directory, entry), segments, found);
    return;
  }
  if (!/[*?]/.test(head)) {
    walk(path.join(directory, head), rest, found);
    return;
  }
  const matcher = segmentMatcher(head);
  for (const entry of list(directory)) if (matcher.test(entry)) walk(path.join(directory, entry), rest, found);
}

function segmentMatcher(segment: string): RegExp {
  const source = segment
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${source}$`);
}

function list(directory: string): string[] {
  try {
    return readdirSync(directory).filter((entry) => !entry.startsWith('.'));
  } catch {
    return [];
  }
}

function listDirectories(directory: string): string[] {
  return list(directory).filter((entry) => !isFile(path.join(directory, entry)) && entry !== 'node_modules');
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
