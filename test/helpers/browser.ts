/**
 * A headless Chromium for tests, driven by playwright-core, that needs no
 * system package: the binary comes from the npm package @sparticuz/chromium
 * (a brotli-compressed Chromium; 147.0.0 is its last version whose engines
 * allow Node 20), unpacked once into node_modules/.cache. When that package
 * is not installed, Debian's /usr/bin/chromium is used if present.
 *
 * Each launch gets a fresh profile folder (--user-data-dir), removed on close,
 * so parallel test files and parallel worktrees never share browser state.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';

/** Flags for a quiet, offline, sandbox-free headless run. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const require = createRequire(import.meta.url);

/** The npm package's folder, or null when it is not installed (its exports hide package.json). */
function packageDir(): string | null {
  let entry: string;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch {
    return null;
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'bin', 'chromium.br'))) return dir;
  }
  return null;
}

/**
 * Unpacks the npm package's chromium.br into node_modules/.cache (once per
 * package version). The binary is written under a unique name and renamed
 * into place, so concurrent first runs never see a half-written file.
 */
async function unpackedChromium(dir: string): Promise<string> {
  const { version } = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version: string };
  const cacheDir = resolve(dir, '..', '..', '.cache', 'toolmark-chromium', version);
  const binary = join(cacheDir, 'chromium');
  if (existsSync(binary)) return binary;
  await mkdir(cacheDir, { recursive: true });
  const partial = `${binary}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  try {
    await pipeline(
      createReadStream(join(dir, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial),
    );
    await chmod(partial, 0o755);
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  return binary;
}

/** The Chromium executable to drive; throws saying what to install when there is none. */
export async function chromiumExecutable(): Promise<string> {
  const dir = packageDir();
  if (dir) return unpackedChromium(dir);
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  throw new Error(
    'no Chromium: run npm ci (it installs the devDependency @sparticuz/chromium), or install /usr/bin/chromium',
  );
}

/** A launched browser context; close() also removes its profile folder. */
export interface LaunchedBrowser {
  context: BrowserContext;
  executablePath: string;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile folder. */
export async function launchBrowser(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<LaunchedBrowser> {
  const executablePath = await chromiumExecutable();
  const profile = await mkdtemp(join(tmpdir(), 'toolmark-chromium-profile-'));
  const context = await chromium
    .launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: options.viewport ?? { width: 1360, height: 900 },
    })
    .catch(async (error: unknown) => {
      await rm(profile, { recursive: true, force: true });
      throw error;
    });
  return {
    context,
    executablePath,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
