import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

describe('src/stats import boundary (SPEC §9)', () => {
  it('imports only sibling files: numbers in, numbers out', () => {
    const dir = fileURLToPath(new URL('../../src/stats/', import.meta.url));
    const files = readdirSync(dir).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = readFileSync(join(dir, file), 'utf8');
      const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
      for (const specifier of specifiers)
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[a-z0-9-]+\.ts$/);
    }
  });
});
