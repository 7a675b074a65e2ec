import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { seededPermutation, truncateWords } from '../../src/load/perturb.ts';
import { generatedDistractors } from '../../src/load/distractors.ts';
import { ConfigError, formatConfigIssue, type ResolvedSurface } from '../../src/spec/index.ts';
import { REPO_ROOT, projectWith } from './materialize.ts';

// Derived surfaces of the base project's `typed` surface (get_note,
// list_notes, preview_note_append, append_note; strict), one perturbation each.
const SURFACES: Record<string, string> = {
  shuffled: 'id: shuffled\nextends: typed\nperturb: { shuffle: { seed: 1 } }\n',
  'shuffled-again': 'id: shuffled-again\nextends: typed\nperturb: { shuffle: { seed: 1 } }\n',
  'shuffled-2': 'id: shuffled-2\nextends: typed\nperturb: { shuffle: { seed: 2 } }\n',
  'plus-3': 'id: plus-3\nextends: typed\nperturb: { distractors: { count: 3, from: [generated] } }\n',
  'to-6':
    'id: to-6\nextends: typed\nperturb: { distractors: { total: 6, from: [generated, "domain:notes"], seed: 4 } }\n',
  'to-10':
    'id: to-10\nextends: typed\nperturb: { distractors: { total: 10, from: [generated, "domain:notes"], seed: 4 } }\n',
  'from-file':
    'id: from-file\nextends: typed\nperturb: { distractors: { count: 2, from: ["file:extra-tools.json"] } }\n',
  opaque: 'id: opaque\nextends: typed\nperturb: { names: opaque }\n',
  terse: 'id: terse\nextends: typed\nperturb: { descriptions: { truncate_words: 3 } }\n',
  bare: 'id: bare\nextends: typed\nperturb: { descriptions: remove }\n',
  'child-of-perturbed': 'id: child-of-perturbed\nextends: opaque\n',
  'read-only-view': 'id: read-only-view\nextends: typed\nvisibility: by_permission\n',
  'inherits-visibility': 'id: inherits-visibility\nextends: read-only-view\n',
};
const EXTRA_TOOLS = JSON.stringify({
  tools: [
    {
      name: 'weather_now',
      description: 'Current weather for a city.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    },
    {
      name: 'send_sms',
      description: 'Send a text message.',
      inputSchema: { type: 'object', properties: { to: { type: 'string' } } },
    },
  ],
});

let notes: LoadedDomain;
let dispose: () => Promise<void>;
let root: string;
beforeAll(async () => {
  const files: Record<string, string> = Object.fromEntries(
    Object.entries(SURFACES).map(([id, text]) => [`suites/notes/surfaces/${id}.yaml`, text]),
  );
  files['extra-tools.json'] = EXTRA_TOOLS;
  const project = await projectWith(files, 'perturb');
  dispose = project.dispose;
  root = project.root;
  notes = (await loadProject(project.root)).domains[0]!;
});
afterAll(() => dispose());

const surface = (id: string): ResolvedSurface => notes.surfaces.find((candidate) => candidate.id === id)!;
const names = (id: string) => surface(id).payload.map((tool) => tool.name);
const BASE = ['get_note', 'list_notes', 'preview_note_append', 'append_note'];

describe('seeded helpers', () => {
  it('a permutation is deterministic per seed and holds every index once', () => {
    expect(seededPermutation(8, 1)).toEqual(seededPermutation(8, 1));
    expect([...seededPermutation(8, 1)].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(seededPermutation(8, 1)).not.toEqual(seededPermutation(8, 2));
  });
  it('truncates to K whitespace-separated words', () => {
    expect(truncateWords('Read one  note by id.', 3)).toBe('Read one note');
    expect(truncateWords('Short.', 3)).toBe('Short.');
  });
});

describe('perturb: as a derived surface', () => {
  it('shuffle: same seed, same order and hash; another seed, another order; the same tools', () => {
    expect(names('typed')).toEqual(BASE);
    expect(names('shuffled')).toEqual(names('shuffled-again'));
    expect(surface('shuffled').hash).toBe(surface('shuffled-again').hash);
    expect([...names('shuffled')].sort()).toEqual([...BASE].sort());
    // The permutation of seed 1 applied to the base order, computed from the helper the loader uses.
    expect(names('shuffled')).toEqual(seededPermutation(4, 1).map((index) => BASE[index]));
    expect(names('shuffled')).not.toEqual(BASE);
    expect(names('shuffled-2')).not.toEqual(names('shuffled'));
    expect(surface('shuffled').hash).not.toBe(surface('typed').hash);
  });

  it('distractors: added to the payload only, never routed, strict like the surface', () => {
    const plus = surface('plus-3');
    expect(plus.payload).toHaveLength(7);
    expect(plus.tools.map((tool) => tool.name)).toEqual(BASE);
    expect(plus.distractors).toHaveLength(3);
    for (const name of plus.distractors!) expect(plus.tools.some((tool) => tool.name === name)).toBe(false);
    // The generated pool, 5 rounds × 4 tools; round 0: get→fetch, list→browse, preview→draft, and
    // append_note (no verb of the table) → manage_append_note.
    const pool = generatedDistractors(surface('typed').payload).map((tool) => tool.name);
    expect(pool).toHaveLength(20);
    expect(pool.slice(0, 4)).toEqual(['fetch_note', 'browse_notes', 'draft_note_append', 'manage_append_note']);
    expect(pool.slice(4, 8)).toEqual(['read_note', 'search_notes', 'simulate_note_append', 'handle_append_note']);
    // Drawn by the seeded permutation of seed 0 (the default): its first three indices into the pool.
    expect(plus.distractors).toEqual(
      seededPermutation(20, 0)
        .slice(0, 3)
        .map((index) => pool[index]),
    );
    expect(plus.payload.slice(0, 4).map((tool) => tool.name)).toEqual(BASE);
    expect(plus.payload.every((tool) => tool.strict)).toBe(true);
    expect(generatedDistractors(surface('typed').payload)[0]!.description).toBe(
      'Fetch: Read one note by id. Never changes it.',
    );
    expect(plus.hash).not.toBe(surface('typed').hash);
  });

  it('total: fills up to the size; a larger total keeps the smaller one’s picks (same seed)', () => {
    expect(surface('to-6').payload).toHaveLength(6);
    expect(surface('to-10').payload).toHaveLength(10);
    for (const name of surface('to-6').distractors!) expect(surface('to-10').distractors).toContain(name);
  });

  it('file: tools of an imported tools file', () => {
    expect([...surface('from-file').distractors!].sort()).toEqual(['send_sms', 'weather_now']);
  });

  it('names: opaque renames in payload order and keeps the routing', () => {
    expect(names('opaque')).toEqual(['tool_01', 'tool_02', 'tool_03', 'tool_04']);
    const mapping = Object.fromEntries(surface('opaque').tools.map((tool) => [tool.name, tool.mapping]));
    expect(mapping.tool_01).toEqual({ kind: 'identity', action: 'note.get' });
    expect(mapping.tool_04).toEqual({ kind: 'identity', action: 'note.append' });
  });

  it('descriptions: truncated to K words, or removed', () => {
    expect(surface('terse').payload[0]!.description).toBe('Read one note');
    expect(surface('terse').tools[0]!.description).toBe('Read one note');
    expect(surface('bare').payload.every((tool) => tool.description === '')).toBe(true);
  });

  it('is not inherited: a child of a perturbed surface starts from the unperturbed tools', () => {
    expect(names('child-of-perturbed')).toEqual(BASE);
  });
});

describe('visibility: by_permission', () => {
  it('records the permission each exposed tool needs (from the registry contract); changes the hash only', () => {
    const view = surface('read-only-view');
    expect(view.visibility).toEqual({
      by: 'permission',
      permissions: {
        get_note: 'note:read',
        list_notes: 'note:read',
        preview_note_append: 'note:read',
        append_note: 'note:write',
      },
    });
    expect(view.payload).toEqual(surface('typed').payload);
    expect(view.hash).not.toBe(surface('typed').hash);
    expect(surface('inherits-visibility').visibility).toEqual(view.visibility);
    expect(surface('typed').visibility).toBeUndefined();
  });
});

describe('bad perturbations fail at load with file:line and the field', () => {
  const loadError = async (text: string, extra: Record<string, string> = {}) => {
    const project = await projectWith({ 'suites/notes/surfaces/bad.yaml': text, ...extra }, 'perturb-bad');
    try {
      await loadProject(project.root);
      throw new Error('expected a ConfigError');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return error.issues.map(formatConfigIssue).join('\n');
    } finally {
      await project.dispose();
    }
  };

  it('more distractors than the pool holds', async () => {
    const text = await loadError(
      'id: bad\nextends: typed\nperturb:\n  distractors: { count: 99, from: [generated] }\n',
    );
    expect(text).toMatch(/bad\.yaml:4/);
    expect(text).toMatch(/perturb\.distractors\.count/);
    expect(text).toMatch(/99 distractors asked for, but the sources \(generated\) give only 20 tools/);
  });

  it('an unknown domain source, with the domains there are', async () => {
    const text = await loadError(
      'id: bad\nextends: typed\nperturb:\n  distractors: { count: 1, from: ["domain:nots"] }\n',
    );
    expect(text).toMatch(/perturb\.distractors\.from\[0\]/);
    expect(text).toMatch(/unknown distractor domain "nots"/);
    expect(text).toMatch(/domain:notes/);
  });

  it('count and total together; a total below the surface size', async () => {
    expect(await loadError('id: bad\nextends: typed\nperturb: { distractors: { count: 1, total: 9 } }\n')).toMatch(
      /exactly one of `count`/,
    );
    expect(await loadError('id: bad\nextends: typed\nperturb: { distractors: { total: 2 } }\n')).toMatch(
      /total 2 is below the 4 tools/,
    );
  });

  it('an unknown perturbation and a bad visibility value', async () => {
    expect(await loadError('id: bad\nextends: typed\nperturb: { rename: opaque }\n')).toMatch(/rename/);
    expect(await loadError('id: bad\nextends: typed\nvisibility: read_only\n')).toMatch(/visibility/);
  });
});

describe('toolmark validate --print-surface and tokens on a derived surface', () => {
  const toolmark = (...args: string[]) =>
    spawnSync(process.execPath, [join(REPO_ROOT, 'bin/toolmark.js'), ...args], { encoding: 'utf8', cwd: REPO_ROOT });

  it('shows the declaration, the payload order and the distractors; tokens counts them per tool', () => {
    const printed = toolmark('validate', '--root', root, '--print-surface', 'plus-3', '--json');
    expect(printed.stderr).toBe('');
    const surfaceJson = JSON.parse(printed.stdout);
    expect(surfaceJson.perturb).toEqual({ distractors: { count: 3, from: ['generated'], seed: 0 } });
    expect(surfaceJson.payload_order).toEqual(names('plus-3'));
    expect(surfaceJson.distractors.map((tool: { name: string }) => tool.name)).toEqual(surface('plus-3').distractors);
    expect(surfaceJson.tools).toHaveLength(4);
    const view = JSON.parse(toolmark('validate', '--root', root, '--print-surface', 'read-only-view', '--json').stdout);
    expect(view.visibility.permissions.append_note).toBe('note:write');
    const tokens = JSON.parse(toolmark('tokens', '--root', root, '--surface', 'plus-3', '--json').stdout);
    expect(tokens.rows.filter((row: { tool: string | null }) => row.tool !== null)).toHaveLength(7);
  });
});
