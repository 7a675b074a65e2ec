import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { ConfigError, formatConfigIssue, type ResolvedSurface } from '../../src/spec/index.ts';
import { projectWith } from './materialize.ts';

/** Deferred-loading revisions of the base project's `typed` surface (test/fixtures/project-basic). */
const SURFACES: Record<string, string> = {
  deferred: 'id: deferred\nextends: typed\nloading: deferred\nalways_loaded: [note.list]\nsearch: { top_k: 2 }\n',
  // Inherits loading, always_loaded and top_k; only renames a tool.
  'deferred-child': 'id: deferred-child\nextends: deferred\ntools:\n  - { action: note.get, name: read_note }\n',
  'deferred-regex': 'id: deferred-regex\nextends: deferred\nsearch: { anthropic: regex }\n',
  'eager-again': 'id: eager-again\nextends: deferred\nloading: eager\n',
  'deferred-plain': 'id: deferred-plain\nextends: typed\nloading: deferred\n',
  // Dotted names form the OpenAI namespace `notes`; its description is given, and inherited by a child.
  'deferred-ns':
    'id: deferred-ns\nextends: deferred\nsearch: { namespaces: { notes: "Notes: read and list them." } }\n' +
    'tools:\n  - { action: note.get, name: notes.get }\n  - { action: note.preview, name: notes.preview }\n',
  'deferred-ns-child': 'id: deferred-ns-child\nextends: deferred-ns\nsearch: { openai: namespaces }\n',
};

let notes: LoadedDomain;
let dispose: () => Promise<void>;
beforeAll(async () => {
  const files = Object.fromEntries(
    Object.entries(SURFACES).map(([id, text]) => [`suites/notes/surfaces/${id}.yaml`, text]),
  );
  const project = await projectWith(files, 'loading');
  dispose = project.dispose;
  notes = (await loadProject(project.root)).domains[0]!;
});
afterAll(() => dispose());

const surface = (id: string): ResolvedSurface => notes.surfaces.find((candidate) => candidate.id === id)!;

describe('surface option loading: deferred', () => {
  it('resolves always_loaded to exposed names, with top_k and the Anthropic variant', () => {
    expect(surface('deferred').loading).toEqual({
      mode: 'deferred',
      always_loaded: ['list_notes'],
      top_k: 2,
      anthropic: 'bm25',
    });
    expect(surface('deferred-plain').loading).toEqual({
      mode: 'deferred',
      always_loaded: [],
      top_k: 5,
      anthropic: 'bm25',
    });
    expect(surface('typed').loading).toBeUndefined();
  });

  it('is inherited by revisions, field by field, and a revision may turn it off', () => {
    expect(surface('deferred-child').loading).toEqual(surface('deferred').loading);
    expect(surface('deferred-regex').loading).toMatchObject({
      top_k: 2,
      always_loaded: ['list_notes'],
      anthropic: 'regex',
    });
    expect(surface('eager-again').loading).toBeUndefined();
  });

  it('is part of the surface hash; the payload stays the whole catalog', () => {
    expect(surface('deferred').payload).toEqual(surface('typed').payload);
    expect(surface('deferred').hash).not.toBe(surface('typed').hash);
    expect(surface('deferred-regex').hash).not.toBe(surface('deferred').hash);
    // Off again: exactly the eager surface's hash (same payload, nothing deferred).
    expect(surface('eager-again').hash).toBe(surface('typed').hash);
  });

  it('keeps the OpenAI grouping and namespace descriptions only when given (a surface without them keeps its hash)', () => {
    expect(surface('deferred-ns').loading).toEqual({
      mode: 'deferred',
      always_loaded: ['list_notes'],
      top_k: 2,
      anthropic: 'bm25',
      namespaces: { notes: 'Notes: read and list them.' },
    });
    expect(surface('deferred-ns-child').loading).toEqual({
      ...surface('deferred-ns').loading,
      openai: 'namespaces',
    });
    expect('openai' in surface('deferred').loading!).toBe(false);
  });
});

async function loadError(files: Record<string, string>, name: string): Promise<string[]> {
  const project = await projectWith(files, name);
  try {
    const error = await loadProject(project.root).then(
      () => null,
      (caught: unknown) => caught,
    );
    if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
    return error.issues.map(formatConfigIssue);
  } finally {
    await project.dispose();
  }
}

describe('surface option loading: bad input', () => {
  it('names file:line, field and the closest id for an unknown always_loaded entry', async () => {
    const issues = await loadError(
      {
        'suites/notes/surfaces/bad.yaml': 'id: bad\nextends: typed\nloading: deferred\nalways_loaded:\n  - note.lst\n',
      },
      'loading-unknown',
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain('suites/notes/surfaces/bad.yaml:5');
    expect(issues[0]).toContain('always_loaded[0]');
    expect(issues[0]).toContain('note.list');
  });

  it('rejects an unknown mode, always_loaded on an eager surface, and deferring nothing', async () => {
    const issues = await loadError(
      {
        'suites/notes/surfaces/mode.yaml': 'id: mode\nextends: typed\nloading: lazy\n',
        'suites/notes/surfaces/eager.yaml': 'id: eager\nextends: typed\nalways_loaded: [note.get]\n',
        'suites/notes/surfaces/all.yaml':
          'id: all\nextends: typed\nloading: deferred\nalways_loaded: [note.get, note.list, note.preview, note.append]\n',
      },
      'loading-bad',
    );
    const text = issues.join('\n');
    expect(text).toMatch(/mode\.yaml:3.*loading/);
    expect(text).toMatch(/eager\.yaml:3.*always_loaded.*applies only to a deferred surface/);
    expect(text).toMatch(/all\.yaml:4.*nothing is deferred/);
  });

  it('rejects a namespace description no tool forms (with the closest), and namespaces with flat OpenAI functions', async () => {
    const dotted = 'tools:\n  - { action: note.get, name: notes.get }\n';
    const issues = await loadError(
      {
        'suites/notes/surfaces/ns.yaml':
          'id: ns\nextends: typed\nloading: deferred\nsearch:\n  namespaces:\n    note: Notes.\n' + dotted,
        'suites/notes/surfaces/flat.yaml':
          'id: flat\nextends: typed\nloading: deferred\nsearch:\n  openai: functions\n  namespaces: { notes: Notes. }\n' +
          dotted,
      },
      'loading-namespaces',
    );
    const text = issues.join('\n');
    expect(issues).toHaveLength(2);
    expect(text).toMatch(/ns\.yaml:6.*namespace "note" is not formed by any tool of surface ns/);
    expect(text).toMatch(/one of the namespaces of its dotted names: notes/);
    expect(text).toMatch(/flat\.yaml:\d+.*search\.openai: functions` sends no namespace/);
  });
});
