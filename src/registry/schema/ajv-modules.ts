import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv as AjvCore, Options } from 'ajv';
import { distModule } from '../../spec/dist-module.ts';

/**
 * ajv's classes and ajv-formats, from the one-file bundle `npm run build`
 * writes (scripts/ajv-bundle.js) when it holds the versions installed now,
 * else from the packages as installed. Required as installed, ajv is ~80
 * CommonJS files, each resolved (package lookups, stats), read and compiled
 * in turn: ~40–60 ms of a JSON-Schema domain's load; the bundle ~20 ms. The
 * code is the same either way; a bundle of other versions (an install that
 * resolved newer ones, a checkout after `npm update`) is never used.
 */

type AjvClass = new (options: Options) => AjvCore;

export interface AjvModules {
  /** The validator class of a draft (`ajv/dist/2020`, `ajv/dist/2019`, `ajv` for draft-07). */
  Ajv2020: AjvClass;
  Ajv2019: AjvClass;
  Ajv: AjvClass;
  addFormats: (ajv: AjvCore) => AjvCore;
}

/** The bundle's place under dist/ (shipped with dist/src/). */
export const AJV_BUNDLE_IN_DIST = 'src/vendor/ajv.cjs';

const require = createRequire(import.meta.url);

/** The installed version of each bundled package, found as ajv finds them (its own dependencies from its folder). */
function installedVersion(name: string, ajvFolder: string): string | undefined {
  const from = name === 'ajv' || name === 'ajv-formats' ? require : createRequire(`${ajvFolder}/`);
  try {
    return (from(`${name}/package.json`) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function bundled(): AjvModules | null {
  const url = distModule(import.meta.url, AJV_BUNDLE_IN_DIST);
  if (url === null || !existsSync(url)) return null;
  try {
    const bundle = require(fileURLToPath(url)) as AjvModules & { versions?: Record<string, string> };
    const ajvFolder = dirname(require.resolve('ajv/package.json'));
    const versions = Object.entries(bundle.versions ?? {});
    return versions.length > 0 && versions.every(([name, version]) => installedVersion(name, ajvFolder) === version)
      ? bundle
      : null;
  } catch {
    return null;
  }
}

/** As installed, each module required when first asked for. */
const installed: AjvModules = {
  get Ajv2020() {
    return (require('ajv/dist/2020') as { default: AjvClass }).default;
  },
  get Ajv2019() {
    return (require('ajv/dist/2019') as { default: AjvClass }).default;
  },
  get Ajv() {
    return (require('ajv') as { default: AjvClass }).default;
  },
  get addFormats() {
    return (require('ajv-formats') as { default: AjvModules['addFormats'] }).default;
  },
};

let chosen: AjvModules | undefined;

/** ajv and ajv-formats: bundled when that is the installed code, else as installed. */
export function ajvModules(): AjvModules {
  return (chosen ??= bundled() ?? installed);
}
