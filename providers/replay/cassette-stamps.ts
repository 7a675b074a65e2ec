import { statSync } from 'node:fs';
import { expandGlob } from './glob.ts';

/** A file as the cassette worker found it before and after reading it (cassette-prefetch.ts). */
export interface FileStamp {
  file: string;
  size: number;
  mtimeMs: number;
}

/** The files of `paths` with their size and modification time (-1 for one that cannot be read). */
export function stampFiles(paths: readonly string[], root: string): FileStamp[] {
  return paths
    .flatMap((pattern) => expandGlob(pattern, root))
    .map((file) => {
      try {
        const { size, mtimeMs } = statSync(file);
        return { file, size, mtimeMs };
      } catch {
        return { file, size: -1, mtimeMs: -1 };
      }
    });
}

/** Are these files still as they were stamped? */
export function unchanged(files: readonly FileStamp[]): boolean {
  return files.every(({ file, size, mtimeMs }) => {
    try {
      const stat = statSync(file);
      return stat.size === size && stat.mtimeMs === mtimeMs;
    } catch {
      return false;
    }
  });
}
