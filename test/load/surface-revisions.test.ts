import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { sha256, type ResolvedSurface } from '../../src/spec/index.ts';
import { projectWith } from './materialize.ts';

/**
 * Revisions of the base project's `typed` surface (see
 * test/fixtures/project-basic/suites/notes/surfaces/typed.yaml), each
 * differing from it in exactly one way.
 */
const SURFACES: Record<string, string> = {
  // Same tools, written differently (keys reordered, another id and description): same payload.
  'same-payload': `id: same-payload
description: A different description that the model never sees
strict: true
tools:
  - { name: get_note, parameters: { note_id: Note id such as N-1 }, description: Read one note by id. Never changes it., action: note.get }
  - { action: note.list, name: list_notes, parameters: { filter.owner.email: Owner e-mail address } }
  - { action: note.preview, name: preview_note_append, description: Show what appending would do. Never writes. }
  - { action: note.append, name: append_note, description: Append a line. Needs approval and a fresh action_id. }
`,
  'empty-revision': 'id: empty-revision\nextends: typed\ndescription: changes nothing\n',
  renamed: 'id: renamed\nextends: typed\ntools:\n  - { action: note.get, name: read_note }\n',
  redescribed: 'id: redescribed\nextends: typed\ntools:\n  - { action: note.get, description: Read one note by id. }\n',
  'parameter-text':
    'id: parameter-text\nextends: typed\ntools:\n  - { action: note.get, parameters: { note_id: The note id } }\n',
  reordered: 'id: reordered\nextends: typed\norder: [note.list]\n',
  'not-strict': 'id: not-strict\nextends: typed\nstrict: false\n',
  'with-system': 'id: with-system\nextends: typed\nsystem: You help with notes.\n',
  removed: 'id: removed\nextends: typed\ntools:\n  - { action: note.append, remove: true }\n',
  added:
    'id: added\nextends: removed\ntools:\n  - { tool: note.operation, name: note_operation, actions_by: { field: operation, arguments: payload, map: { append: note.append } } }\n',
  'param-merge':
    'id: param-merge\nextends: typed\ntools:\n  - { action: note.list, parameters: { limit: "How many notes, 1 to 5" } }\n',
  grandchild: 'id: grandchild\nextends: renamed\ntools:\n  - { action: note.get, description: Fetch a note. }\n',
};

let notes: LoadedDomain;
let dispose: () => Promise<void>;
beforeAll(async () => {
  const files = Object.fromEntries(
    Object.entries(SURFACES).map(([id, text]) => [`suites/notes/surfaces/${id}.yaml`, text]),
  );
  const project = await projectWith(files, 'revisions');
  dispose = project.dispose;
  notes = (await loadProject(project.root)).domains[0]!;
});
afterAll(() => dispose());

const surface = (id: string): ResolvedSurface => notes.surfaces.find((candidate) => candidate.id === id)!;
const names = (id: string) => surface(id).payload.map((tool) => tool.name);

describe('extends merge', () => {
  it('a revision keeps everything it does not mention', () => {
    expect(surface('empty-revision').payload).toEqual(surface('typed').payload);
    expect(surface('empty-revision').extends).toBe('typed');
    expect(surface('empty-revision').description).toBe('changes nothing');
  });

  it('replaces only the fields it gives, matched by action', () => {
    const renamed = surface('renamed').payload;
    expect(renamed[0]).toEqual({ ...surface('typed').payload[0], name: 'read_note' });
    expect(renamed.slice(1)).toEqual(surface('typed').payload.slice(1));
  });

  it('merges parameter overrides per parameter', () => {
    const list = surface('param-merge').payload[1]!.parameters.properties as any;
    expect(list.limit.description).toBe('How many notes, 1 to 5');
    expect(list.filter.properties.owner.properties.email.description).toBe('Owner e-mail address');
  });

  it('order: puts the listed tools first and keeps the rest in order', () => {
    expect(names('reordered')).toEqual(['list_notes', 'get_note', 'preview_note_append', 'append_note']);
    expect(names('typed-rev')).toEqual(['list_notes', 'draft_note_append', 'append_note', 'get_note']);
  });

  it('remove: true drops a tool; unmatched entries are appended', () => {
    expect(names('removed')).toEqual(['get_note', 'list_notes', 'preview_note_append']);
    expect(names('added')).toEqual(['get_note', 'list_notes', 'preview_note_append', 'note_operation']);
    expect(surface('added').tools[3]!.mapping).toEqual({
      kind: 'multiplexed',
      field: 'operation',
      arguments: 'payload',
      map: { append: 'note.append' },
    });
    // strict is inherited through two levels; a tool added in a revision is strict too.
    expect(surface('added').payload[3]!.strict).toBe(true);
  });

  it('chains revisions: the grandchild sees its parent’s change and its own', () => {
    expect(surface('grandchild').payload[0]).toMatchObject({ name: 'read_note', description: 'Fetch a note.' });
  });

  it('inherits system and strict, and can override them', () => {
    expect(surface('with-system').system).toBe('You help with notes.');
    expect(surface('not-strict').strict).toBe(false);
    expect(surface('not-strict').payload[0]!.parameters).not.toHaveProperty('additionalProperties');
  });
});

describe('surface hash', () => {
  it('is sha256 of the canonical payload when there is no system prompt', () => {
    expect(surface('typed').hash).toBe(sha256(surface('typed').payload));
  });

  it('is the same for any two files that produce the same payload (ids, descriptions, key order do not count)', () => {
    expect(surface('same-payload').payload).toEqual(surface('typed').payload);
    expect(surface('same-payload').hash).toBe(surface('typed').hash);
    expect(surface('empty-revision').hash).toBe(surface('typed').hash);
  });

  it.each([
    'renamed',
    'redescribed',
    'parameter-text',
    'reordered',
    'not-strict',
    'with-system',
    'removed',
    'typed-rev',
  ])('changes when the model would notice: %s', (id) => {
    expect(surface(id).hash).not.toBe(surface('typed').hash);
  });

  it('gives every distinct payload its own hash', () => {
    const ids = Object.keys(SURFACES).filter((id) => id !== 'same-payload' && id !== 'empty-revision');
    const hashes = new Set(ids.map((id) => surface(id).hash));
    expect(hashes.size).toBe(ids.length);
  });
});
