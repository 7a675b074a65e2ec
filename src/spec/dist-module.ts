/**
 * The URL of a compiled module by its path under dist/, found from the URL
 * of the module asking (`import.meta.url`), or null when that module is not
 * under a dist/ folder. A worker thread imports its entry by path, and the
 * build bundles the module starting the worker into a shared chunk under
 * dist/src/chunks/ (scripts/build.js), so the entry is not "beside" it: it
 * is found from dist/ instead. The entries are entry points of the build.
 */
export function distModule(here: string, pathInDist: string): URL | null {
  const dist = here.lastIndexOf('/dist/');
  return dist < 0 ? null : new URL(pathInDist, here.slice(0, dist + '/dist/'.length));
}
