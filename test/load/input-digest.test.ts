import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { digestFiles, domainFileDigests, domainInputDigest, domainInputFiles } from '../../src/load/input-digest.ts';

const root = mkdtempSync(path.join(tmpdir(), 'toolmark-input-digest-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

describe('domainFileDigests', () => {
  write('suites/desk/domain.yaml', 'name: desk\nkind: declarative\n');
  write('suites/desk/tasks/a.yaml', '- id: a1\n');
  write('suites/desk/tasks/b.yaml', '- id: b1\n- id: b2\n');
  write('heldout/desk/c.yaml', '- id: c1\n');

  it("gives each file's digest as made with the domain's digest, as digestFiles makes it alone", () => {
    const digest = domainInputDigest(root, 'desk')!;
    const names = domainInputFiles(root, 'desk')!;
    expect(digest).toBe(digestFiles(root, names));
    const files = domainFileDigests(root, 'desk', digest)!;
    expect(Object.keys(files)).toEqual(names);
    for (const name of names) expect(files[name]).toBe(digestFiles(root, [name]));
  });

  it("gives nothing for a digest that is not the domain's last one (a file changed since)", () => {
    const before = domainInputDigest(root, 'desk')!;
    write('suites/desk/tasks/a.yaml', '- id: a2\n');
    const after = domainInputDigest(root, 'desk')!;
    expect(after).not.toBe(before);
    expect(domainFileDigests(root, 'desk', before)).toBeNull();
    expect(domainFileDigests(root, 'desk', after)?.['suites/desk/tasks/a.yaml']).toBe(
      digestFiles(root, ['suites/desk/tasks/a.yaml']),
    );
    expect(domainFileDigests(root, 'other', after)).toBeNull();
  });
});
