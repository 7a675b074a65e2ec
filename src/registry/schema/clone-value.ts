import { types } from 'node:util';

/**
 * The copy `structuredClone(value)` makes, made by a plain walk when the
 * value is a small tree of plain objects, dense arrays and primitives —
 * what tools take and return. Validation copies every call's arguments and
 * every output (json-schema.ts), and for values this small the round trip
 * of structuredClone (serialise, then deserialise) took about three times
 * as long as the walk: ~2 µs a replayed call.
 *
 * Anything else goes to structuredClone whole, so the result — or the
 * error, for a function or a symbol — is exactly its: a class instance, a
 * Date, a Map, a boxed primitive, a proxy, a sparse array or one with named
 * properties, an object reached twice (a cycle, or a shared part the clone
 * would keep shared), a `__proto__` key, or a tree larger than `MAX_OBJECTS`
 * objects or `MAX_ITEMS` items an array. (A getter the walk ran before it
 * gave up runs again in structuredClone: values with getters are not what
 * tools pass.)
 */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? structuredClone(value) : value;
  const seen: object[] = [];
  const copy = plainCopy(value, seen);
  return copy === NOT_PLAIN ? structuredClone(value) : (copy as T);
}

/** Objects and arrays a plain walk copies at most, and items of one array; a larger value is left to structuredClone. */
const MAX_OBJECTS = 64;
const MAX_ITEMS = 256;
const NOT_PLAIN: unique symbol = Symbol('not plain');

function plainCopy(value: unknown, seen: object[]): unknown {
  if (value === null) return value;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
    case 'bigint':
      return value;
    case 'object':
      break;
    default:
      // A function or a symbol: structuredClone refuses it (DataCloneError).
      return NOT_PLAIN;
  }
  const object = value as object;
  if (seen.length === MAX_OBJECTS || seen.includes(object) || types.isProxy(object)) return NOT_PLAIN;
  seen.push(object);
  const prototype = Object.getPrototypeOf(object) as unknown;
  if (Array.isArray(object)) {
    if (prototype !== Array.prototype || object.length > MAX_ITEMS || Object.keys(object).length !== object.length)
      return NOT_PLAIN;
    const copy: unknown[] = [];
    for (let index = 0; index < object.length; index += 1) {
      const item = plainCopy(object[index], seen);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy.push(item);
    }
    return copy;
  }
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    // Assigned, `__proto__` would set the copy's prototype instead of making the property.
    if (key === '__proto__') return NOT_PLAIN;
    const item = plainCopy((object as Record<string, unknown>)[key], seen);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = item;
  }
  return copy;
}
