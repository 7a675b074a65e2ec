import { basename } from 'node:path';
import { findRunFolder, noRunFolder } from '../run-folder/index.ts';

/** A run folder, optionally narrowed to one surface (`RUN:surface`). */
export interface RunRef {
  /** As the user wrote it. */
  text: string;
  runDir: string;
  runId: string;
  surface: string | null;
}

/**
 * Resolve `RUN` or `RUN:surface`, where RUN is found as every command finds
 * a run (src/run-folder/locate.ts). Unknown → ConfigError with the closest run id.
 */
export function resolveRunRef(text: string, resultsDir: string, flag = 'run'): RunRef {
  const direct = findRunFolder(text, resultsDir);
  if (direct !== null) return { text, runDir: direct, runId: basename(direct), surface: null };
  const colon = text.lastIndexOf(':');
  if (colon > 0 && colon < text.length - 1) {
    const runDir = findRunFolder(text.slice(0, colon), resultsDir);
    if (runDir !== null) return { text, runDir, runId: basename(runDir), surface: text.slice(colon + 1) };
  }
  throw noRunFolder(colon > 0 ? text.slice(0, colon) : text, resultsDir, flag);
}
