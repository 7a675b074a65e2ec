import { z } from 'zod';
import type { JsonSchema } from '../../spec/index.ts';
import { zod4JsonSchema } from './zod4.ts';

/** Structurally, a zod 3 schema node (zod 3.x, or the `zod/v3` subpath of zod ≥ 3.25 and of zod 4). */
export interface Zod3Node {
  /** Typed loosely: zod 3's own def interfaces are read through `Zod3Def` below. */
  readonly _def: object;
}

interface Zod3Check {
  kind: string;
  value?: number;
  inclusive?: boolean;
  regex?: RegExp;
  message?: string;
  offset?: boolean;
  local?: boolean;
  precision?: number | null;
}

interface Zod3Def {
  typeName?: string;
  description?: string;
  checks?: Zod3Check[];
  [field: string]: unknown;
}

function child(def: Zod3Def, field: string): Zod3Node {
  return def[field] as Zod3Node;
}

function defOf(node: Zod3Node): Zod3Def {
  return node._def as Zod3Def;
}

function stringOf(checks: readonly Zod3Check[]): z.ZodType {
  let schema = z.string();
  // Formats first, then lengths and patterns, as zod 4's own builders order them.
  for (const check of checks) {
    switch (check.kind) {
      case 'email':
        schema = schema.email();
        break;
      case 'url':
        schema = schema.url();
        break;
      case 'uuid':
        schema = schema.uuid();
        break;
      case 'cuid':
        schema = schema.cuid();
        break;
      case 'cuid2':
        schema = schema.cuid2();
        break;
      case 'ulid':
        schema = schema.ulid();
        break;
      case 'emoji':
        schema = schema.emoji();
        break;
      case 'nanoid':
        schema = schema.nanoid();
        break;
      case 'base64':
        schema = schema.base64();
        break;
      case 'date':
        schema = schema.date();
        break;
      case 'time':
        schema = schema.time({ precision: check.precision ?? undefined });
        break;
      case 'duration':
        schema = schema.duration();
        break;
      case 'ip':
        schema = schema.ipv4();
        break;
      case 'datetime':
        schema = schema.datetime({ offset: check.offset, local: check.local, precision: check.precision ?? undefined });
        break;
      case 'min':
        schema = schema.min(check.value!);
        break;
      case 'max':
        schema = schema.max(check.value!);
        break;
      case 'length':
        schema = schema.length(check.value!);
        break;
      case 'regex':
        schema = schema.regex(check.regex!);
        break;
      case 'startsWith':
        schema = schema.startsWith(String(check.value));
        break;
      case 'endsWith':
        schema = schema.endsWith(String(check.value));
        break;
      case 'includes':
        schema = schema.includes(String(check.value));
        break;
      // trim, toLowerCase, … transform the value and show nothing to a model.
    }
  }
  return schema;
}

function numberOf(checks: readonly Zod3Check[]): z.ZodType {
  let schema = z.number();
  for (const check of checks) {
    if (check.kind === 'int') schema = schema.int();
    else if (check.kind === 'min') schema = check.inclusive ? schema.gte(check.value!) : schema.gt(check.value!);
    else if (check.kind === 'max') schema = check.inclusive ? schema.lte(check.value!) : schema.lt(check.value!);
    else if (check.kind === 'multipleOf') schema = schema.multipleOf(check.value!);
  }
  return schema;
}

/**
 * Rebuild a zod 3 schema as the equivalent zod 4 schema, for its JSON Schema
 * only: so a tool written in zod 3 shows the model exactly what the same
 * tool written in zod 4 shows (one converter, `z.toJSONSchema`, one set of
 * conventions). Validation never uses the copy — the user's zod 3 schema
 * validates, with its refinements and messages. What JSON Schema cannot say
 * (a refinement, a transform's output, a custom type) becomes "anything",
 * as zod 4 does with `unrepresentable: 'any'`.
 */
export function zod4Twin(node: Zod3Node, seen = new Map<Zod3Node, z.ZodType>()): z.ZodType {
  const known = seen.get(node);
  if (known) return known;
  const def = defOf(node);
  const recurse = (inner: Zod3Node) => zod4Twin(inner, seen);
  let twin: z.ZodType;
  switch (def.typeName) {
    case 'ZodString':
      twin = stringOf(def.checks ?? []);
      break;
    case 'ZodNumber':
      twin = numberOf(def.checks ?? []);
      break;
    case 'ZodBoolean':
      twin = z.boolean();
      break;
    case 'ZodNull':
      twin = z.null();
      break;
    case 'ZodUndefined':
      twin = z.undefined();
      break;
    case 'ZodNever':
      twin = z.never();
      break;
    case 'ZodUnknown':
      twin = z.unknown();
      break;
    case 'ZodAny':
      twin = z.any();
      break;
    case 'ZodLiteral':
      twin = z.literal(def.value as string);
      break;
    case 'ZodEnum':
      twin = z.enum(def.values as [string, ...string[]]);
      break;
    case 'ZodNativeEnum':
      twin = z.enum(def.values as Record<string, string | number>);
      break;
    case 'ZodArray': {
      let array = z.array(recurse(child(def, 'type')));
      const length = (field: string) => (def[field] as { value: number } | null)?.value;
      if (length('exactLength') !== undefined) array = array.length(length('exactLength')!);
      if (length('minLength') !== undefined) array = array.min(length('minLength')!);
      if (length('maxLength') !== undefined) array = array.max(length('maxLength')!);
      twin = array;
      break;
    }
    case 'ZodObject': {
      const shape = (def.shape as () => Record<string, Zod3Node>)();
      const fields: Record<string, z.ZodType> = {};
      for (const [key, value] of Object.entries(shape)) fields[key] = recurse(value);
      const catchall = child(def, 'catchall');
      if (catchall && defOf(catchall).typeName !== 'ZodNever') twin = z.object(fields).catchall(recurse(catchall));
      else if (def.unknownKeys === 'strict') twin = z.strictObject(fields);
      else if (def.unknownKeys === 'passthrough') twin = z.looseObject(fields);
      else twin = z.object(fields);
      break;
    }
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion': {
      const options = def.options as Zod3Node[] | Map<unknown, Zod3Node>;
      const list = Array.isArray(options) ? options : [...options.values()];
      twin = z.union(list.map(recurse) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
      break;
    }
    case 'ZodIntersection':
      twin = z.intersection(recurse(child(def, 'left')), recurse(child(def, 'right')));
      break;
    case 'ZodTuple': {
      const items = (def.items as Zod3Node[]).map(recurse) as [z.ZodType, ...z.ZodType[]];
      twin = def.rest ? z.tuple(items, recurse(child(def, 'rest'))) : z.tuple(items);
      break;
    }
    case 'ZodRecord':
      twin = z.record(recurse(child(def, 'keyType')) as z.ZodString, recurse(child(def, 'valueType')));
      break;
    case 'ZodOptional':
      twin = recurse(child(def, 'innerType')).optional();
      break;
    case 'ZodNullable':
      twin = recurse(child(def, 'innerType')).nullable();
      break;
    case 'ZodDefault':
      twin = recurse(child(def, 'innerType')).default((def.defaultValue as () => never)());
      break;
    case 'ZodCatch':
    case 'ZodReadonly':
      twin = recurse(child(def, 'innerType'));
      break;
    case 'ZodBranded':
      twin = recurse(child(def, 'type'));
      break;
    // The input side: what the model must send is what the effect/pipe takes in.
    case 'ZodEffects':
      twin = recurse(child(def, 'schema'));
      break;
    case 'ZodPipeline':
      twin = recurse(child(def, 'in'));
      break;
    case 'ZodLazy': {
      const getter = def.getter as () => Zod3Node;
      twin = z.lazy(() => recurse(getter()));
      break;
    }
    default:
      twin = z.any();
  }
  if (def.description !== undefined) twin = twin.describe(def.description);
  seen.set(node, twin);
  return twin;
}

/** The model payload of a zod 3 schema: the JSON Schema of its zod 4 twin. */
export function zod3JsonSchema(schema: Zod3Node): JsonSchema {
  return zod4JsonSchema(zod4Twin(schema) as never);
}
