import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, '../..');
export const FIXTURES = join(REPO_ROOT, 'test/fixtures');
export const BASE_PROJECT = join(FIXTURES, 'project-basic');

/**
 * A scratch project: the valid base project with a negative case's files laid
 * over it. It lives under node_modules/.cache so the copied domain module
 * still resolves `zod` and the repo's sources exactly as in place.
 */
export async function materialize(
  overlay: string | null,
  name: string,
): Promise<{ root: string; dispose(): Promise<void> }> {
  const parent = join(REPO_ROOT, 'node_modules/.cache');
  await mkdir(parent, { recursive: true });
  // Same depth below the repo root as test/fixtures/project-basic, so the
  // fixture domain's relative imports of src/ still resolve.
  const root = await mkdtemp(join(parent, `toolmark-load-${name}-`));
  await cp(BASE_PROJECT, root, { recursive: true });
  if (overlay) await cp(overlay, root, { recursive: true });
  // Node stops looking for a package scope at node_modules, so say ESM here.
  await writeFile(join(root, 'package.json'), '{ "type": "module", "private": true }\n');
  return { root, dispose: () => rm(root, { recursive: true, force: true }) };
}

/** The base project plus extra files (path → text), for tests that build their case inline. */
export async function projectWith(
  files: Record<string, string>,
  name = 'inline',
): Promise<{ root: string; dispose(): Promise<void> }> {
  const project = await materialize(null, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(project.root, path)), { recursive: true });
    await writeFile(join(project.root, path), text);
  }
  return project;
}
