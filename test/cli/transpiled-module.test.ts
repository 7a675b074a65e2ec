/**
 * A compiled toolmark imports a user's domain.ts without tsx's loader thread:
 * transpiled in-thread into the module cache (src/load/transpiled-module.ts).
 * The cached graph is imported here by plain node (no tsx, no vitest), as the
 * compiled CLI does: local .ts and .js files, JSON and npm packages resolve
 * as node resolves them, a module imported twice is one module, stack
 * frames point at the user's .ts lines, an edit rebuilds only its file, and
 * what the cache does not take is left to tsx (null).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transpiledModuleUrl } from '../../src/load/transpiled-module.ts';
import { projectWith } from '../load/materialize.ts';

const exec = promisify(execFile);
const cache = mkdtempSync(path.join(tmpdir(), 'toolmark-module-cache-'));
let root: string;
let dispose: () => Promise<void>;
const previousCacheDir = process.env.TOOLMARK_CACHE_DIR;

/** Node alone imports `url` (source maps on, as importUserModule does) and prints what `script` returns. */
async function inNode(url: string, script: string): Promise<unknown> {
  const code = `process.setSourceMapsEnabled(true);
const module = await import(${JSON.stringify(url)});
const zod = await import('zod');
const result = await (async () => { ${script} })();
process.stdout.write(JSON.stringify(result));`;
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', code], { cwd: root });
  return JSON.parse(stdout) as unknown;
}

const file = (name: string) => path.join(root, 'suites/mixed', name);
const cached = () => readdirSync(path.join(cache, 'modules')).filter((name) => name.endsWith('.mjs'));

beforeAll(async () => {
  process.env.TOOLMARK_CACHE_DIR = cache;
  ({ root, dispose } = await projectWith(
    {
      'suites/mixed/domain.ts': `import { z } from 'zod';
import { shared, bump } from './shared.ts';
import { double } from './plain.js';
import limits from './limits.json' with { type: 'json' };
import { viaHelper } from './helper.ts';

export const schema: z.ZodType = z.object({ id: z.string() });
export const doubled: number = double(limits.max);
export function fail(reason: string): never {
  throw new Error(\`failed: \${reason}\`);
}
export const here = import.meta.url;
export const sameShared = viaHelper === shared;
export const count = bump();
export default { name: 'mixed' };
`,
      'suites/mixed/shared.ts': `export const shared = { made: 0 };
export function bump(): number {
  shared.made += 1;
  return shared.made;
}
`,
      'suites/mixed/helper.ts': `import { shared } from './shared.ts';
export const viaHelper = shared;
`,
      'suites/mixed/plain.js': `export const double = (n) => n * 2;\n`,
      'suites/mixed/limits.json': `{ "max": 21 }\n`,
      'suites/mixed/tsconfig.json': `{ "compilerOptions": { "paths": { "@here/*": ["./*"] } } }\n`,
    },
    'transpiled',
  ));
  // Modules are named by their real path, as node names them (node_modules may be a link).
  root = realpathSync(root);
});

afterAll(async () => {
  if (previousCacheDir === undefined) delete process.env.TOOLMARK_CACHE_DIR;
  else process.env.TOOLMARK_CACHE_DIR = previousCacheDir;
  await dispose();
  rmSync(cache, { recursive: true, force: true });
});

describe('a domain.ts transpiled into the module cache', () => {
  it('imports its .ts, .js and JSON neighbours and packages as node does, one module per file', async () => {
    const transpiled = await transpiledModuleUrl(file('domain.ts'));
    expect(transpiled).not.toBeNull();
    expect(transpiled!.files.sort()).toEqual(['domain.ts', 'helper.ts', 'plain.js', 'shared.ts'].map(file));
    const seen = await inNode(
      transpiled!.url,
      `return {
        name: module.default.name,
        doubled: module.doubled,
        zodIsNodes: module.schema instanceof zod.ZodType,
        sameShared: module.sameShared,
        count: module.count,
        here: module.here,
      };`,
    );
    expect(seen).toEqual({
      name: 'mixed',
      doubled: 42,
      zodIsNodes: true,
      sameShared: true,
      count: 1,
      here: new URL(`file://${file('domain.ts')}`).href,
    });
  });

  it("points a thrown error's stack at the user's .ts file and line", async () => {
    const transpiled = await transpiledModuleUrl(file('domain.ts'));
    const stack = (await inNode(
      transpiled!.url,
      `try { module.fail('why'); } catch (error) { return error.stack; }`,
    )) as string;
    expect(stack).toContain('Error: failed: why');
    expect(stack).toContain(`${file('domain.ts')}:10:9`);
  });

  it('rebuilds only the edited file, and uses the rest as cached', async () => {
    await transpiledModuleUrl(file('domain.ts'));
    const before = new Map(cached().map((name) => [name, statSync(path.join(cache, 'modules', name)).mtimeMs]));
    writeFileSync(file('plain.js'), 'export const double = (n) => n * 3;\n');
    const transpiled = await transpiledModuleUrl(file('domain.ts'));
    const changed = cached().filter((name) => statSync(path.join(cache, 'modules', name)).mtimeMs !== before.get(name));
    expect(changed).toEqual([cached().find((name) => name.startsWith('plain-'))]);
    expect(await inNode(transpiled!.url, 'return module.doubled;')).toBe(63);
  });

  it('leaves to tsx what it does not take: a syntax error, JSON without its type, import.meta.resolve, an alias, CommonJS, no cache', async () => {
    const cases: Record<string, string> = {
      'syntax.ts': 'export default {\n  name "broken",\n};\n',
      'json.ts': "import limits from './limits.json';\nexport default limits;\n",
      'resolve.ts': "export default import.meta.resolve('./shared.ts');\n",
      'computed.ts': "const name = './shared.ts';\nexport default await import(name);\n",
      'missing.ts': "import { nothing } from './nowhere.ts';\nexport default nothing;\n",
      // Not a package node finds: a tsconfig `paths` alias, which only tsx reads.
      'alias.ts': "import { shared } from '@here/shared';\nexport default shared;\n",
    };
    for (const [name, text] of Object.entries(cases)) {
      writeFileSync(file(name), text);
      expect(await transpiledModuleUrl(file(name)), name).toBeNull();
    }
    writeFileSync(path.join(root, 'suites/mixed/package.json'), '{ "type": "commonjs" }\n');
    try {
      expect(await transpiledModuleUrl(file('domain.ts'))).toBeNull();
    } finally {
      rmSync(path.join(root, 'suites/mixed/package.json'));
    }
    process.env.TOOLMARK_CACHE_DIR = 'off';
    try {
      expect(await transpiledModuleUrl(file('domain.ts'))).toBeNull();
    } finally {
      process.env.TOOLMARK_CACHE_DIR = cache;
    }
    // The cached files say what they were built from; none for what was refused.
    expect(cached().some((name) => /^(syntax|json|resolve|computed|missing|alias)-/.test(name))).toBe(false);
    expect(readFileSync(path.join(cache, 'modules', cached()[0]!), 'utf8')).toMatch(/^\/\/toolmark-module \{"key"/);
  });
});
