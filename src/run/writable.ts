import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../spec/index.ts';

/**
 * A path the run will write (a cassette to record, the results folder) must
 * be usable before anything runs — a bad one would otherwise fail every
 * trial, or crash after the manifest — yet nothing is created until it is
 * needed: check the path itself, or the nearest folder above it that exists.
 * `flag` names the option in the error (`--record`, `--out`).
 */
export function checkWritable(flag: string, target: string, kind: 'file' | 'folder'): void {
  const what = kind === 'file' ? 'the cassette' : 'results';
  const refuse = (why: string) =>
    new ConfigError({
      file: flag,
      field: target,
      message: `cannot write ${what} here: ${why}`,
      expected:
        kind === 'file' ? 'a file path in a writable folder' : 'a writable folder (or a path where one can be made)',
    });
  for (let current = target; ; current = path.dirname(current)) {
    let stats;
    try {
      stats = statSync(current);
    } catch {
      if (path.dirname(current) === current) throw refuse('no folder above it exists');
      continue;
    }
    if (current === target && kind === 'file' && stats.isDirectory()) throw refuse('it is a folder');
    if ((current !== target || kind === 'folder') && !stats.isDirectory()) throw refuse(`${current} is not a folder`);
    try {
      accessSync(current, constants.W_OK);
    } catch {
      throw refuse(`${current} is not writable`);
    }
    return;
  }
}
