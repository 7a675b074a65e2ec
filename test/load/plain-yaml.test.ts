import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWithJsYaml } from '../../src/load/fast-yaml.ts';
import { parsePlain } from '../../src/load/plain-yaml.ts';
import type { FastParse } from '../../src/load/fast-yaml.ts';
import { REPO_ROOT } from './materialize.ts';

// The plain reader (src/load/plain-yaml.ts) must give exactly what js-yaml
// gives — the same values with keys in the same order, the same item
// offsets — for every text it accepts, and accept nothing js-yaml refuses.
// Whatever it is unsure of it must refuse (null), never guess.

/** Same value (keys in the same order, via JSON and deep equality) and same offsets as js-yaml. */
function expectSameAsJsYaml(text: string, plain: FastParse): void {
  const reference = parseWithJsYaml(text);
  expect(reference, text).not.toBeNull();
  expect(plain.value, text).toStrictEqual(reference!.value);
  expect(JSON.stringify(plain.value), text).toBe(JSON.stringify(reference!.value));
  expect([...plain.itemOffsets], text).toEqual([...reference!.itemOffsets]);
}

/** A task file in the generated shape: block sequence of block mappings with flow values. */
function generatedFile(count: number): string {
  const lines = ['v: 1', 'tasks:'];
  for (let index = 0; index < count; index++) {
    lines.push(
      `  - id: ask-${String(index).padStart(6, '0')}`,
      '    kind: must-call',
      `    messages: [{ role: user, content: "Translate \\"good morning number ${index}\\" into French." }]`,
      `    expect: { action: desk.translate_text, args: { text: "good morning number ${index}", n: ${index}, ok: true } }`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : yamlFiles(full);
    return /\.ya?ml$/.test(entry.name) ? [full] : [];
  });
}

describe('plain YAML reader', () => {
  it('reads the generated task-file shape, as js-yaml does', () => {
    const text = generatedFile(50);
    const plain = parsePlain(text);
    expect(plain).not.toBeNull();
    expectSameAsJsYaml(text, plain!);
    expect((plain!.value as { tasks: unknown[] }).tasks).toHaveLength(50);
  });

  it('gives what js-yaml gives on every YAML file of the repository it accepts, and accepts most suites', () => {
    const files = ['suites', 'heldout', 'examples', 'test/fixtures'].flatMap((dir) => yamlFiles(join(REPO_ROOT, dir)));
    let accepted = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const plain = parsePlain(text);
      if (plain === null) continue;
      accepted++;
      expectSameAsJsYaml(text, plain);
    }
    expect(accepted).toBeGreaterThan(files.length / 2);
  });

  it('resolves plain scalars by the core schema, as js-yaml does', () => {
    const text = [
      'a: 1',
      'b: -7',
      'c: 0x1F',
      'd: 1.5e3',
      'e: .inf',
      'f: true',
      'g: False',
      'h: ~',
      'i: null',
      'j:',
      'k: 2026-01-01',
      'l: [1, "1", \'1\', yes, Null, -.5, a b c, billing:read]',
      'm: { x: 0o17, y: it\'s, z: "a\\u00e9\\n" }',
      'n: plain text # and a comment',
      'o: {"temperature_c":7,"sky":"cloudy","d": -1.5,"l":[1,"a"],"m":{"x":null},"t":true,"é":\'q\'}',
      'p: >-',
      '  Folded: lines # not a comment',
      '  - joined by spaces.',
      '',
      'q:',
      '  r: >-',
      '    one',
      '    two',
      '',
    ].join('\n');
    const plain = parsePlain(text);
    expect(plain).not.toBeNull();
    expectSameAsJsYaml(text, plain!);
  });

  it('tells apart keys and plain values of the same length and first character (its recent-string slots)', () => {
    const text = [
      'tasks:',
      ...['abc', 'abf', 'abc', 'abe'].flatMap((key, index) => [
        `  - ${key}: abd`,
        `    abd: ${index % 2 ? 'abc' : 'abd'}`,
        `    ${key === 'abc' ? 'abe' : 'abc'}: [abc, abd, 1, abe, true, abc]`,
        `    m: { abc: abe, abd: { abe: abc } }`,
      ]),
      '',
    ].join('\n');
    const plain = parsePlain(text);
    expect(plain).not.toBeNull();
    expectSameAsJsYaml(text, plain!);
    const [first, second] = (plain!.value as { tasks: { abd: string }[] }).tasks;
    // Equal plain strings of a file are one string (src/load/plain-yaml.ts).
    expect(first!.abd).toBe('abd');
    expect(second!.abd).toBe('abc');
    // A plain value `__proto__` read before does not make the key `__proto__` one the reader accepts.
    expect(parsePlain('a: __proto__\n__proto__: 1\n')).toBeNull();
    expect(parsePlain('a: __proto__\nb: [__proto__]\n')).not.toBeNull();
  });

  it('refuses what it does not read itself', () => {
    const refused = [
      'a: &x [1]\nb: *x\n', // anchors and aliases
      'a: !!str 1\n', // tags
      'a: |\n  text\n', // block scalars
      'a: >\n  text\n',
      'a: [1,\n  2]\n', // a flow collection over lines
      'a: "two\n  lines"\n', // a quoted scalar over lines
      'a: plain\n  continued\n', // a plain scalar over lines
      'a:\n\t- 1\n', // tabs
      'a: 1\r\nb: 2\r\n', // CRs
      'a: 1\na: 2\n', // a duplicate key
      '1: a\n', // a key that is not a string
      '__proto__: 1\n',
      '---\na: 1\n', // document markers
      'a: 1\n---\nb: 2\n',
      '- 1\n- 2\n', // a root that is not a mapping
      '',
      'a: "\\x41"\n', // an escape JSON does not share
      '? a\n: 1\n', // explicit keys
      'a: {b}\n', // a flow entry without a value
      'a: [b: 1]\n', // a single-pair mapping in a sequence
      'a: b: c\n', // bad input js-yaml words
      'a: [1\n',
      'a: {"b":}\n', // JSON-like keys: no value, a space before the colon, an odd value start, `__proto__`
      'a: {"b" : 1}\n',
      'a: {"b"::c}\n',
      'a: {"b":#c}\n',
      'a: {"__proto__":1}\n',
      'a: {"b":1,"b":2}\n',
    ];
    for (const text of refused) expect(parsePlain(text), JSON.stringify(text)).toBeNull();
  });

  it('leaves to js-yaml a nesting too deep for its stack, rather than throwing', () => {
    const depth = 200_000;
    expect(parsePlain(`a: ${'['.repeat(depth)}${']'.repeat(depth)}\n`)).toBeNull();
  });

  describe('on generated documents', () => {
    const key = fc.oneof(
      { arbitrary: fc.constantFrom('a', 'b', 'id', 'kind', 'x_1', 'a.b', 'a-b', 'c/d'), weight: 12 },
      { arbitrary: fc.constantFrom('true', 'null', '1', 'a b', 'é'), weight: 1 },
    );
    const character = fc.oneof(
      { arbitrary: fc.constantFrom('a', 'b', ' ', ':', '#', "'", '"', '\\', '-', ',', '[', '}', 'é', '😀'), weight: 8 },
      { arbitrary: fc.constantFrom('\n', '\t', '\u0085', '\u2028'), weight: 1 },
      { arbitrary: fc.string({ minLength: 1, maxLength: 1 }), weight: 4 },
    );
    const text = fc.string({ maxLength: 12, unit: character });
    const scalar = fc.oneof(
      {
        arbitrary: fc.constantFrom('1', '-2', '0x1F', '1.5', '.inf', 'true', 'Null', '~', 'a b', 'it is', 'x:y', '-x'),
        weight: 6,
      },
      { arbitrary: fc.constantFrom('a#b', 'a: b', '&a', '*a', '!a', '|', '@a', '%a', '? a', 'http://x'), weight: 1 },
      { arbitrary: text.map((value) => JSON.stringify(value)), weight: 3 },
      { arbitrary: text.map((value) => `'${value.replaceAll("'", "''")}'`), weight: 2 },
    );
    const flow: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        scalar,
        fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
        fc
          .uniqueArray(fc.tuple(key, tie('value')), { maxLength: 3, selector: ([name]) => name })
          .map((entries) => `{ ${entries.map(([name, value]) => `${name}: ${value}`).join(', ')} }`),
        // As JSON writes a mapping: quoted keys, `:` right after them (a generated domain's canned outputs).
        fc
          .uniqueArray(fc.tuple(fc.oneof(key, text), tie('value')), { maxLength: 3, selector: ([name]) => name })
          .map((entries) => `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`),
      ),
    })).value;
    const block = (indent: number, depth: number): fc.Arbitrary<string> => {
      const pad = ' '.repeat(indent);
      const value: fc.Arbitrary<string> =
        depth === 0
          ? flow.map((text) => ` ${text}`)
          : fc.oneof(
              flow.map((text) => ` ${text}`),
              block(indent + 2, depth - 1).map((text) => `\n${text}`),
              fc
                .array(block(indent + 4, depth - 1), { minLength: 1, maxLength: 3 })
                .map((items) => `\n${items.map((item) => `${pad}  - ${item.trimStart()}`).join('\n')}`),
              // A folded block scalar, as hand-written suites wrap a long description.
              fc
                .tuple(
                  fc.array(fc.oneof(text, scalar), { minLength: 1, maxLength: 3 }),
                  fc.constantFrom('>-', '>', '|-', '>-  '),
                  fc.constantFrom('  ', '   ', ' '),
                  fc.constantFrom('', '\n', '\n\n'),
                )
                .map(
                  ([lines, header, more, after]) =>
                    ` ${header}\n${lines.map((line) => `${pad}${more}${line}`).join('\n')}${after}`,
                ),
            );
      return fc
        .uniqueArray(fc.tuple(key, value), { minLength: 1, maxLength: 4, selector: ([name]) => name })
        .map((entries) => entries.map(([name, text]) => `${pad}${name}:${text}`).join('\n'));
    };
    const noise = fc.constantFrom(
      ...[':', ' ', '#', '-', '\n', '"', "'", '[', ']', '{', '}', ',', '&', '*', '!', '|', '\\', '\t', '?'],
      ...['\n  ', '  # c\n', '\n- ', ': ', ' #', '\r\n', '---\n'],
    );
    const mutated = fc
      .tuple(block(0, 2), fc.array(fc.tuple(fc.nat(), noise), { minLength: 1, maxLength: 2 }))
      .map(([text, edits]) => {
        let result = `${text}\n`;
        for (const [at, insert] of edits) {
          const position = at % (result.length + 1);
          result = result.slice(0, position) + insert + result.slice(position);
        }
        return result;
      });

    /** Runs the property; returns how many documents the plain reader accepted. */
    function check(documents: fc.Arbitrary<string>, numRuns: number): number {
      let accepted = 0;
      fc.assert(
        fc.property(documents, (text) => {
          const plain = parsePlain(text);
          if (plain === null) return;
          accepted++;
          expectSameAsJsYaml(text, plain);
        }),
        { numRuns },
      );
      return accepted;
    }

    it('gives what js-yaml gives, or refuses', () => {
      // Not only refusals: a fair share of what is generated is read. The share depends on the
      // random documents: 118-165 of 2,000 in 30 runs (mean ~140) since the generator also
      // makes JSON-like mappings and folded scalars; 60 is far below any run, far above none.
      expect(
        check(
          block(0, 2).map((text) => `${text}\n`),
          2000,
        ),
      ).toBeGreaterThan(60);
    });

    it('gives what js-yaml gives, or refuses, once characters are inserted anywhere', () => {
      expect(check(mutated, 5000)).toBeGreaterThan(20);
    });
  });
});
