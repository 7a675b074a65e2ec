import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as installed from 'zod';
// @ts-expect-error plain JavaScript of the build (scripts/), without declarations
import { writeZodBundle } from '../../scripts/zod-bundle.js';
import { zodBundle } from '../../src/spec/zod-module.ts';

// The build's one-file zod (scripts/zod-bundle.js, toolmark's zod when
// compiled while it holds the installed version: src/spec/zod-module.ts)
// must be the installed code, and a user's schemas made with the installed
// zod must be read by it as by the installed zod: checked, converted, their
// descriptions and metadata kept.

const require = createRequire(import.meta.url);
const esbuild = createRequire(require.resolve('tsx/package.json'))('esbuild');
const root = join(import.meta.dirname, '..', '..');

async function bundled(): Promise<{ zod: typeof installed; version: string }> {
  const folder = mkdtempSync(join(tmpdir(), 'toolmark-zod-'));
  const loader = pathToFileURL(join(root, 'src', 'spec', 'cached-script.ts')).href;
  await writeZodBundle(esbuild, root, join(folder, 'zod.js'), join(folder, 'zod.json'), loader);
  const { version } = JSON.parse(readFileSync(join(folder, 'zod.json'), 'utf8')) as { version: string };
  return { zod: (await import(pathToFileURL(join(folder, 'zod.js')).href)) as typeof installed, version };
}

describe('the build’s zod bundle', { timeout: 60_000 }, () => {
  it('records the installed version and exports what the installed entry exports', async () => {
    const { zod, version } = await bundled();
    expect(version).toBe((require('zod/package.json') as { version: string }).version);
    expect(Object.keys(zod).sort()).toEqual(Object.keys(installed).sort());
    expect(zod.default).toBe(zod.z);
  });

  it('checks, converts and describes a schema of the installed zod as the installed zod does', async () => {
    const { zod } = await bundled();
    const { z } = installed;
    const schema = z.object({
      id: z
        .string()
        .regex(/^T-\d+$/)
        .describe('ticket id'),
      priority: z.enum(['low', 'high']).default('low').meta({ title: 'Priority' }),
      tags: z.array(z.string()).max(2).optional(),
    });
    for (const input of [{ id: 'T-1' }, { id: 'x', tags: ['a', 'b', 'c'] }, 'text']) {
      expect(zod.z.safeParse(schema, input)).toEqual(z.safeParse(schema, input));
    }
    expect(zod.z.toJSONSchema(schema, { io: 'input' })).toEqual(z.toJSONSchema(schema, { io: 'input' }));
    expect(schema instanceof zod.z.ZodType).toBe(true);
    const ours = zod.z.object({ when: zod.z.iso.datetime() });
    expect(z.toJSONSchema(ours)).toEqual(zod.z.toJSONSchema(ours));
  });

  it('is not toolmark’s zod from source, so a user’s module keeps importing the installed zod', () => {
    expect(zodBundle).toBeNull();
  });
});
