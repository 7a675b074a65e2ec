import type { z } from 'zod';

/** A compiled check: true only when the schema accepts the value and would return it unchanged. */
export type ShapeCheck<T> = (value: unknown) => value is T;

/** What zod 4 keeps of a schema (`schema._zod.def`), as far as the compiler reads it. */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  [field: string]: unknown;
}

interface CheckDef {
  check: string;
  value?: number;
  inclusive?: boolean;
  format?: string;
  minimum?: number;
  maximum?: number;
  length?: number;
  pattern?: RegExp;
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/**
 * A fast structural check derived from a zod schema: `shapeCheck(schema)(value)`
 * is true only when `schema.parse(value)` would succeed *and* return the
 * value unchanged — no default to fill, no key to strip. Anything else
 * (false) is the caller's cue to run the schema itself, which fills the
 * defaults of an older or hand-written value or names the bad field.
 *
 * Why: on the hot paths — every line of a 100,000-trial `trials.jsonl` read
 * back, every replayed cassette line, every record and turn the runner
 * builds — zod's parse costs about as much as `JSON.parse` itself, while a
 * compiled closure tree costs a fraction. Derived from the schema, the check
 * cannot drift from it (hand-written copies used to be kept in step by
 * tests). It may say false where zod would accept unchanged (a non-strict
 * union, say), never true where zod would reject or change the value.
 *
 * Supports what the spec's schemas use: primitives with their size and
 * format checks, literals, enums, objects (strip, strict, loose), arrays,
 * records with string keys, unions (discriminated or of schemas that never
 * change a value), optional, nullable, default, lazy, unknown and any. A
 * construct it does not know (transform, refinement, pipe…) is an error
 * when the check is compiled, not a silent pass.
 */
export function shapeCheck<S extends z.ZodType>(schema: S): ShapeCheck<z.output<S>> {
  return compiledOnFirstUse(schema, false);
}

/**
 * `shapeCheck`, and the value's keys in the order `parse` would return them
 * (an object's shape order, a loose object's other keys after those), so
 * that `JSON.stringify(value)` is `JSON.stringify(schema.parse(value))`
 * byte for byte. For a document toolmark writes after checking it
 * (manifest.json: src/run-folder/documents.ts), where zod's parse built a
 * copy of it only for the JSON to come out the same.
 */
export function orderedShapeCheck<S extends z.ZodType>(schema: S): ShapeCheck<z.output<S>> {
  return compiledOnFirstUse(schema, true);
}

/** The check of `schema`, compiled on its first call, so importing the spec stays cheap. */
function compiledOnFirstUse<S extends z.ZodType>(schema: S, ordered: boolean): ShapeCheck<z.output<S>> {
  let compiled: ((value: unknown) => boolean) | null = null;
  return ((value: unknown) =>
    (compiled ??= shapeCheckFromSource(shapeCheckSource(schema, ordered)))(value)) as ShapeCheck<z.output<S>>;
}

/**
 * A shape check as plain data: its generated source and the constants
 * (regular expressions) it uses — structured-clonable, so a thread that
 * never imports zod can rebuild it with `shapeCheckFromSource` (the replay
 * cassette worker: providers/replay/cassette-prefetch.ts).
 */
export interface ShapeCheckSource {
  source: string;
  constants: unknown[];
}

/**
 * The check `shapeCheck(schema)` compiles (`orderedShapeCheck` with `ordered`), as source (see ShapeCheckSource):
 * generated like a hand-written check, one function per object, array,
 * record, union and lazy schema.
 */
export function shapeCheckSource(schema: z.ZodType, ordered = false): ShapeCheckSource {
  const compiler = new Compiler(ordered);
  const entry = compiler.functionOf(schema);
  return { source: `'use strict';\n${compiler.functions.join('\n')}\nreturn ${entry};`, constants: compiler.constants };
}

/** The check a `shapeCheckSource` describes; needs no zod. */
export function shapeCheckFromSource<T>({ source, constants }: ShapeCheckSource): ShapeCheck<T> {
  return new Function('constants', source)(constants) as ShapeCheck<T>;
}

/** Writes the check as JavaScript source: an expression per primitive, a function per container. */
class Compiler {
  readonly functions: string[] = [];
  readonly constants: unknown[] = [];
  readonly #names = new Map<unknown, string>();

  /** Also check that an object's keys come in the order `parse` returns them (`orderedShapeCheck`). */
  constructor(readonly ordered = false) {}

  /** The name of the function checking `schema`, generated on first use (recursion, through lazy, finds the name). */
  functionOf(schema: unknown): string {
    const def = defOf(schema);
    let name = this.#names.get(schema);
    if (name !== undefined) return name;
    name = `check${this.#names.size}`;
    this.#names.set(schema, name);
    this.functions.push(`function ${name}(value) {\n${this.#body(schema, def)}\n}`);
    return name;
  }

  /** A boolean expression checking `value` (an identifier) against `schema`. */
  expression(schema: unknown, value: string): string {
    const def = defOf(schema);
    switch (def.type) {
      case 'string':
        return `(typeof ${value} === 'string'${this.#refinements(def, value)})`;
      case 'number': {
        const integer = (def.checks ?? []).some(
          ({ _zod: { def: check } }) => check.check === 'number_format' && check.format === 'safeint',
        );
        return integer
          ? `(Number.isSafeInteger(${value})${this.#refinements(def, value)})`
          : `(typeof ${value} === 'number' && Number.isFinite(${value})${this.#refinements(def, value)})`;
      }
      case 'boolean':
        return `(typeof ${value} === 'boolean')`;
      case 'null':
        return `(${value} === null)`;
      case 'unknown':
      case 'any':
        return 'true';
      case 'literal':
        return `(${(def.values as unknown[]).map((literal) => `${value} === ${this.#literal(literal)}`).join(' || ')})`;
      case 'enum':
        return `(${Object.values(def.entries as Record<string, unknown>)
          .map((literal) => `${value} === ${this.#literal(literal)}`)
          .join(' || ')})`;
      case 'optional':
        return `(${value} === undefined || ${this.expression(def.innerType, value)})`;
      case 'nullable':
        return `(${value} === null || ${this.expression(def.innerType, value)})`;
      // A missing value would be filled in: not unchanged.
      case 'default':
        return `(${value} !== undefined && ${this.expression(def.innerType, value)})`;
      case 'lazy':
      case 'array':
      case 'record':
      case 'object':
      case 'union':
        return `${this.functionOf(schema)}(${value})`;
      default:
        throw unsupported(`zod type "${def.type}"`);
    }
  }

  #body(schema: unknown, def: Def): string {
    const notObject = `if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;`;
    switch (def.type) {
      case 'array':
        return `if (!(Array.isArray(value)${this.#refinements(def, 'value')})) return false;
for (let index = 0; index < value.length; index += 1) { const item = value[index]; if (!${this.expression(def.element, 'item')}) return false; }
return true;`;
      case 'record': {
        if (defOf(def.keyType).type !== 'string' || defOf(def.keyType).checks?.length)
          throw unsupported('record keys other than z.string()');
        return `${notObject}
for (const key in value) { const item = value[key]; if (!${this.expression(def.valueType, 'item')}) return false; }
return true;`;
      }
      case 'object':
        return `${notObject}\n${this.#objectBody(def)}`;
      case 'union':
        return this.#unionBody(def);
      // Named by the lazy schema itself (its getter may build a new schema on every call), so recursion ends here.
      case 'lazy':
        return `return ${this.expression((def.getter as () => unknown)(), 'value')};`;
      default:
        return `return ${this.expression(schema, 'value')};`;
    }
  }

  #objectBody(def: Def): string {
    const shape = Object.entries(def.shape as Record<string, unknown>);
    const lines: string[] = [];
    let required = 0;
    const optional: string[] = [];
    shape.forEach(([key, field], index) => {
      const local = `field${index}`;
      const type = defOf(field).type;
      lines.push(`const ${local} = value[${JSON.stringify(key)}];`);
      // An optional field may be absent; any other must be there (zod 4: even z.unknown()).
      if (type === 'optional') optional.push(local);
      else {
        required += 1;
        if (type === 'unknown' || type === 'any')
          lines.push(`if (${local} === undefined && !(${JSON.stringify(key)} in value)) return false;`);
      }
      lines.push(`if (!${this.expression(field, local)}) return false;`);
    });
    const catchall = def.catchall === undefined ? null : defOf(def.catchall).type;
    if (this.ordered) lines.push(this.#keyOrder(shape.map(([key]) => key)));
    if (catchall === 'unknown' || catchall === 'any') return `${lines.join('\n')}\nreturn true;`;
    if (catchall !== null && catchall !== 'never') throw unsupported('an object catchall other than unknown or never');
    // strip would drop an unknown key and strict would reject it: the value has only the shape's keys when their count matches.
    const present = [String(required), ...optional.map((local) => `(${local} !== undefined ? 1 : 0)`)].join(' + ');
    lines.push(`let keys = 0;\nfor (const key in value) keys += 1;\nreturn keys === ${present};`);
    return lines.join('\n');
  }

  /**
   * The shape's keys in their order, any other key after them: zod builds
   * its result in that order (a strip or strict object has no other key
   * once the count below matches).
   */
  #keyOrder(keys: string[]): string {
    this.constants.push(new Map(keys.map((key, index) => [key, index])));
    const places = `constants[${this.constants.length - 1}]`;
    return `{ let at = -1; let other = false;
for (const key in value) { const place = ${places}.get(key); if (place === undefined) { other = true; continue; } if (other || place < at) return false; at = place; } }`;
  }

  #unionBody(def: Def): string {
    const options = def.options as unknown[];
    const discriminator = def.discriminator as string | undefined;
    if (discriminator === undefined) {
      // zod returns the first option that accepts: exact only if no option could accept a value and change it.
      for (const option of options)
        if (!neverChanges(option, new Set()))
          throw unsupported('a union with an option that may change a value (use a discriminated union)');
      return `return ${options.map((option) => this.expression(option, 'value')).join(' || ')};`;
    }
    // One option per discriminator value: only that option can accept the value.
    const cases = options.flatMap((option) => {
      const tag = defOf((defOf(option).shape as Record<string, unknown>)[discriminator]);
      if (tag.type !== 'literal') throw unsupported(`discriminator "${discriminator}" that is not a literal`);
      const check = this.functionOf(option);
      return (tag.values as unknown[]).map((literal) => `case ${this.#literal(literal)}: return ${check}(value);`);
    });
    return `if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
switch (value[${JSON.stringify(discriminator)}]) {
${cases.join('\n')}
default: return false;
}`;
  }

  /** ` && …` for each size, range and format check of a string, number or array schema. */
  #refinements(def: Def, value: string): string {
    return (def.checks ?? [])
      .map(({ _zod: { def: check } }) => ` && ${this.#refinement(check, def.type, value)}`)
      .join('');
  }

  #refinement(check: CheckDef, type: string, value: string): string {
    switch (check.check) {
      case 'greater_than':
        return `${value} ${check.inclusive ? '>=' : '>'} ${Number(check.value)}`;
      case 'less_than':
        return `${value} ${check.inclusive ? '<=' : '<'} ${Number(check.value)}`;
      case 'number_format':
        if (check.format === 'safeint') return 'true'; // in the expression itself
        throw unsupported(`number format "${check.format}"`);
      case 'min_length':
        return `${value}.length >= ${Number(check.minimum)}`;
      case 'max_length':
        return `${value}.length <= ${Number(check.maximum)}`;
      case 'length_equals':
        return `${value}.length === ${Number(check.length)}`;
      case 'string_format':
        if (check.format === 'regex' && check.pattern) {
          this.constants.push(new RegExp(check.pattern.source, check.pattern.flags.replace(/[gy]/g, '')));
          return `constants[${this.constants.length - 1}].test(${value})`;
        }
        throw unsupported(`string format "${check.format}"`);
      default:
        throw unsupported(`check "${check.check}" on ${type}`);
    }
  }

  #literal(literal: unknown): string {
    if (literal === undefined) return 'undefined';
    if (typeof literal === 'bigint' || typeof literal === 'symbol') throw unsupported(`a ${typeof literal} literal`);
    return JSON.stringify(literal);
  }
}

/** True when every value the schema accepts comes back unchanged (no default, no stripped key). */
function neverChanges(schema: unknown, visiting: Set<unknown>): boolean {
  if (visiting.has(schema)) return true;
  visiting.add(schema);
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
    case 'unknown':
    case 'any':
    case 'literal':
    case 'enum':
      return true;
    case 'optional':
    case 'nullable':
      return neverChanges(def.innerType, visiting);
    case 'lazy':
      return neverChanges((def.getter as () => unknown)(), visiting);
    case 'array':
      return neverChanges(def.element, visiting);
    case 'record':
      return neverChanges(def.valueType, visiting);
    case 'union':
      return (def.options as unknown[]).every((option) => neverChanges(option, visiting));
    default:
      return false;
  }
}

function unsupported(what: string): Error {
  return new Error(`shapeCheck: ${what} is not supported; check with the schema instead`);
}
