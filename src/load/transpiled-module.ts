import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Plugin, PluginBuild } from 'esbuild';
import { zodBundle } from '../spec/zod-module.ts';
import { defaultCacheDir, privateFolder } from './parse-cache.ts';

/**
 * A user's TypeScript module (a domain.ts and the local files it imports),
 * transpiled in this thread and kept between processes (issue 20).
 *
 * Compiled, node cannot import TypeScript: registering tsx starts a loader
 * thread (a second isolate that loads tsx and esbuild) and routes every later
 * import through it — ~0.3 s of `toolmark validate` on the shipped example.
 * Node 20 has no in-thread module hooks, so instead each local module is
 * transpiled by esbuild (the one tsx depends on: no dependency of our own) to
 * an ES module in the cache folder, one file per source file (a module
 * imported from two places stays one module), with every import rewritten to
 * where node would find it: a local module to its own cached file, a package
 * to the absolute file node resolves it to (esbuild's resolver with node's
 * conditions and no tsconfig `paths`, which node does not read) — but for
 * `zod` resolving to the installed file toolmark's zod bundle stands in for
 * (src/spec/zod-module.ts), which is pointed at that bundle, so the user's
 * schemas and toolmark's share one zod, as they do from source. The
 * user's source map is inline, with the .ts file as its source, so stack
 * frames point at the user's file and line, as under tsx.
 *
 * A cached file is used while its inputs are the same: the source text, the
 * nearest package.json (the module format) and tsconfig.json (how it is
 * compiled), and, for each package it imports, the package.json node finds
 * from the file's folder (an install or an upgrade rebuilds). A warm import
 * reads and hashes the sources and stats those files; esbuild is not even
 * loaded.
 *
 * Anything unusual returns null, and the caller imports through tsx as
 * before, which gives every error its usual message: a syntax or resolution
 * error, CommonJS, a tsconfig `paths` alias, a JSON import without
 * `with { type: 'json' }`, `import.meta` beyond url/dirname/filename, a
 * dynamic import of a computed name, `require`.
 */

/** Bump when the output for the same inputs changes. */
const FORMAT = 1;
const MARK = '//toolmark-module ';

/** Local modules taken through the cache (a relative import of a .cts/.cjs or anything else is not). */
const LOADERS: Record<string, 'ts' | 'tsx' | 'js' | 'jsx'> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.jsx': 'jsx',
};
/** What a package import may resolve to and be imported natively. */
const NATIVE = new Set(['.js', '.mjs', '.cjs', '.json']);

class Unsupported extends Error {}

interface Meta {
  /** FORMAT, esbuild's and node's version, toolmark's zod bundle (if used), the file's path and text. */
  key: string;
  /** The packages it imports, whose location is part of `context`. */
  packages: string[];
  /** contextOf(file, packages) when it was built. */
  context: string;
  /** The local modules it imports: each its own cached file. */
  deps: string[];
}

const requireHere = createRequire(import.meta.url);
let requireFromTsx: NodeJS.Require | undefined;
/** tsx's own esbuild: present wherever tsx is, whatever the package manager hoisted. */
function fromTsx(id: string): unknown {
  requireFromTsx ??= createRequire(requireHere.resolve('tsx/package.json'));
  return requireFromTsx(id);
}

const sha = (...parts: string[]) => createHash('sha256').update(parts.join('\0')).digest('hex');

function entryPath(folder: string, file: string): string {
  return join(folder, `${basename(file).replace(/\.[^.]+$/, '')}-${sha(file).slice(0, 24)}.mjs`);
}

/** The first `name` found from `dir` upwards (not past a node_modules folder), with its mtime and size. */
function nearest(name: string, dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    if (basename(at) === 'node_modules') return '-';
    const candidate = join(at, name);
    const info = statSync(candidate, { throwIfNoEntry: false });
    if (info?.isFile()) return `${candidate}@${info.mtimeMs}:${info.size}`;
    if (dirname(at) === at) return '-';
  }
}

/** The package.json node finds for `name` imported from `dir` (itself, or under node_modules), with mtime and size. */
function packageJson(name: string, dir: string): string {
  const scope = nearest('package.json', dir);
  if (scope !== '-') {
    const path = scope.slice(0, scope.lastIndexOf('@'));
    const own = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; exports?: unknown };
    if (own.name === name && own.exports !== undefined) return scope;
  }
  for (let at = dir; ; at = dirname(at)) {
    if (basename(at) !== 'node_modules') {
      const candidate = join(at, 'node_modules', name, 'package.json');
      const info = statSync(candidate, { throwIfNoEntry: false });
      if (info) return `${candidate}@${info.mtimeMs}:${info.size}`;
    }
    if (dirname(at) === at) return '-';
  }
}

/** What besides its text decides a module's output. */
function contextOf(file: string, packages: string[]): string {
  const dir = dirname(file);
  return JSON.stringify([
    nearest('package.json', dir),
    nearest('tsconfig.json', dir),
    ...packages.map((name) => packageJson(name, dir)),
  ]);
}

/** An ES module by node's rules: .mts/.mjs, or "type": "module" in the nearest package.json. */
function isModule(file: string): boolean {
  if (/\.m[jt]s$/.test(file)) return true;
  const scope = nearest('package.json', dirname(file));
  if (scope === '-') return false;
  const path = scope.slice(0, scope.lastIndexOf('@'));
  return (JSON.parse(readFileSync(path, 'utf8')) as { type?: string }).type === 'module';
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

let versions: string | undefined;
function keyOf(file: string, text: string): string {
  versions ??= `${FORMAT}:esbuild@${(fromTsx('esbuild/package.json') as { version: string }).version}:${process.version}:${zodBundle?.url ?? '-'}`;
  return sha(versions, file, text);
}

/** The cached file's deps when it was built from these inputs, else null. */
function freshDeps(folder: string, file: string, key: string): string[] | null {
  let text: string;
  try {
    text = readFileSync(entryPath(folder, file), 'utf8');
  } catch {
    return null;
  }
  if (!text.startsWith(MARK)) return null;
  try {
    const meta = JSON.parse(text.slice(MARK.length, text.indexOf('\n'))) as Meta;
    return meta.key === key && meta.context === contextOf(file, meta.packages) ? meta.deps : null;
  } catch {
    return null;
  }
}

interface Esbuild {
  build(options: BuildOptions): Promise<{ outputFiles?: { path: string; text: string }[] }>;
  context(options: BuildOptions): Promise<{ dispose(): Promise<void> }>;
}

/** esbuild, and a resolver for package imports as node resolves them (no tsconfig `paths`, node's conditions). */
interface Tools {
  esbuild: Esbuild;
  resolvePackage: PluginBuild['resolve'];
  dispose(): Promise<void>;
}

async function startTools(): Promise<Tools> {
  const esbuild = fromTsx('esbuild') as Esbuild;
  let resolvePackage: PluginBuild['resolve'] | undefined;
  const context = await esbuild.context({
    ...NODE_RESOLUTION,
    tsconfigRaw: {},
    plugins: [{ name: 'toolmark-package-resolver', setup: (build) => void (resolvePackage = build.resolve) }],
  });
  return { esbuild, resolvePackage: resolvePackage!, dispose: () => context.dispose() };
}

/** Resolution as node's for `import`: its conditions (not esbuild's extra "module"), "main" only. */
const NODE_RESOLUTION: BuildOptions = {
  bundle: true,
  write: false,
  platform: 'node',
  format: 'esm',
  conditions: [],
  mainFields: ['main'],
  logLevel: 'silent',
};

const OWN = Symbol('toolmark: our own resolve call');

/** Transpile `file` into the cache; returns the local modules it imports. */
async function transpile(tools: Tools, folder: string, file: string, text: string, key: string): Promise<string[]> {
  const loader = LOADERS[extname(file)];
  if (loader === undefined || !isModule(file)) throw new Unsupported(file);
  const deps = new Set<string>();
  const packages = new Set<string>();
  const external = (path: string) => ({ path, external: true });
  const plugin: Plugin = {
    name: 'toolmark-user-module',
    setup(build) {
      // The text that was hashed, not a later edit.
      build.onLoad({ filter: /.*/ }, (args) => (args.path === file ? { contents: text, loader } : undefined));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === OWN) return undefined;
        if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') throw new Unsupported(args.kind);
        const specifier = args.path;
        if (isBuiltin(specifier)) return external(specifier);
        const json = (args.with as Record<string, string> | undefined)?.type === 'json';
        if (specifier.startsWith('.') || isAbsolute(specifier)) {
          const found = await build.resolve(specifier, {
            kind: args.kind,
            resolveDir: args.resolveDir,
            importer: args.importer,
            pluginData: OWN,
          });
          const extension = extname(found.path);
          if (found.errors.length > 0) throw new Unsupported(specifier);
          if (LOADERS[extension] !== undefined) {
            deps.add(found.path);
            return external(pathToFileURL(entryPath(folder, found.path)).href);
          }
          if (extension === '.cjs' || (extension === '.json' && json)) return external(pathToFileURL(found.path).href);
          throw new Unsupported(specifier);
        }
        if (/^[#a-z][a-z+.-]*:|^#/i.test(specifier)) throw new Unsupported(specifier);
        const found = await tools.resolvePackage(specifier, { kind: args.kind, resolveDir: args.resolveDir });
        const extension = extname(found.path);
        if (found.errors.length > 0 || !NATIVE.has(extension) || (extension === '.json') !== json)
          throw new Unsupported(specifier);
        packages.add(packageName(specifier));
        if (specifier === 'zod' && zodBundle !== null && realpathSync(found.path) === zodBundle.installedEntry)
          return external(zodBundle.url);
        return external(pathToFileURL(found.path).href);
      });
    },
  };
  const url = pathToFileURL(file).href;
  const result = await tools.esbuild.build({
    ...NODE_RESOLUTION,
    entryPoints: [file],
    outdir: folder,
    // As tsx compiles: for this node, names kept, source map without the sources' text.
    target: `node${process.versions.node}`,
    keepNames: true,
    sourcemap: 'external',
    sourcesContent: false,
    define: {
      'import.meta.url': JSON.stringify(url),
      'import.meta.filename': JSON.stringify(file),
      'import.meta.dirname': JSON.stringify(dirname(file)),
    },
    plugins: [plugin],
  });
  const outputs = result.outputFiles ?? [];
  const code = outputs.find((output) => output.path.endsWith('.js'))?.text;
  const map = outputs.find((output) => output.path.endsWith('.map'))?.text;
  if (code === undefined || map === undefined) throw new Unsupported(file);
  // What only the module's real location could answer (import.meta.resolve, a computed import) stays with tsx.
  if (/\bimport\.meta\b|\bimport\s*\((?!"(?:file|node):)/.test(code)) throw new Unsupported(file);
  const sourceMap = JSON.parse(map) as { sources: string[]; mappings: string };
  sourceMap.sources = sourceMap.sources.map((source) => pathToFileURL(resolve(folder, source)).href);
  sourceMap.mappings = `;${sourceMap.mappings}`; // the first line is the MARK line
  const meta: Meta = { key, packages: [...packages], context: contextOf(file, [...packages]), deps: [...deps] };
  const inline = Buffer.from(JSON.stringify(sourceMap)).toString('base64');
  const target = entryPath(folder, file);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(
    temporary,
    `${MARK}${JSON.stringify(meta)}\n${code}//# sourceMappingURL=data:application/json;base64,${inline}\n`,
    { mode: 0o600 },
  );
  renameSync(temporary, target);
  return meta.deps;
}

/**
 * The URL of `file` transpiled with its local imports into the module cache
 * (src/load/parse-cache.ts's folder), to import instead of `file`, and the
 * source files of that graph; null when it must go through tsx (see above),
 * or when there is no private cache folder.
 */
export async function transpiledModuleUrl(file: string): Promise<{ url: string; files: string[] } | null> {
  const dir = defaultCacheDir();
  // Code is imported from here: the folder and the one holding it must be the user's alone.
  const folder = dir === null || privateFolder(dir) === null ? null : privateFolder(join(dir, 'modules'));
  if (folder === null) return null;
  let tools: Promise<Tools> | undefined;
  const seen = new Set<string>();
  try {
    // As node names a module: by its real path (a linked domain folder), so a file imported back is the same module.
    let level = [realpathSync(file)];
    while (level.length > 0) {
      const found = await Promise.all(
        level.map(async (next) => {
          const text = readFileSync(next, 'utf8');
          const key = keyOf(next, text);
          const fresh = freshDeps(folder, next, key);
          if (fresh !== null) return fresh;
          tools ??= startTools();
          return transpile(await tools, folder, next, text, key);
        }),
      );
      for (const next of level) seen.add(next);
      level = [...new Set(found.flat())].filter((next) => !seen.has(next));
    }
  } catch {
    return null;
  } finally {
    if (tools) await (await tools.catch(() => null))?.dispose();
  }
  return { url: pathToFileURL(entryPath(folder, [...seen][0]!)).href, files: [...seen] };
}
