import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ConfigIssue } from '../spec/index.ts';

/** A suite file's name: `.yaml` or `.yml`, in any case (`Tasks.YAML` is read like `tasks.yaml`). */
const YAML_NAME = /\.ya?ml$/i;

/**
 * The YAML files directly inside a `tasks/` or `surfaces/` folder, sorted; a
 * missing folder is empty. Nothing there is skipped silently
 * (docs/formats.md): a symbolic link is followed to the file it names, and
 * every entry that is not a readable YAML file — another kind of file, a
 * subfolder, a broken or looping link, a FIFO — is an issue.
 */
export async function yamlFilesIn(dir: string, root: string, issues: ConfigIssue[]): Promise<string[]> {
  let entries;
  try {
    // Synchronous, as readSourceFile's reads are (src/load/source-file.ts).
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const display = relative(root, path) || path;
    const link = entry.isSymbolicLink() ? ' (a symbolic link)' : '';
    let kind: 'file' | 'folder' | 'other';
    try {
      // stat follows links (a loop fails with ELOOP, a dangling link with ENOENT).
      const info = statSync(path);
      kind = info.isFile() ? 'file' : info.isDirectory() ? 'folder' : 'other';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      issues.push({
        file: display,
        message: `cannot be read${link}: ${code === 'ELOOP' ? 'the links form a loop' : code === 'ENOENT' ? 'it points to nothing' : code}`,
        expected: 'a YAML file, or a link to one',
      });
      continue;
    }
    if (kind === 'file' && YAML_NAME.test(entry.name)) files.push(path);
    else
      issues.push({
        file: display,
        message:
          kind === 'folder'
            ? `is a folder${link}; only the YAML files directly in ${relative(root, dir) || dir} are read`
            : kind === 'other'
              ? `is not a regular file${link} (a FIFO, socket or device)`
              : `is not a YAML file, so it would be skipped`,
        expected: 'only *.yaml or *.yml files in this folder',
      });
  }
  return files.sort();
}
