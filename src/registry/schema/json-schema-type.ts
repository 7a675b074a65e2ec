/**
 * The TypeScript type a JSON Schema literal describes, for `defineTool`'s
 * handler types. Covers what tool schemas use: `type` (one or a list),
 * `properties` + `required` (a property with a `default` is always present
 * in the handler's input, since the validator fills it in), `items`,
 * `enum`, `const`, `anyOf`/`oneOf`. Anything else is `unknown`; name the
 * type yourself with `jsonSchema<MyInput>(schema)` when it matters.
 */
export type InferJsonSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly (infer A)[] }
      ? InferJsonSchema<A>
      : S extends { oneOf: readonly (infer A)[] }
        ? InferJsonSchema<A>
        : S extends { type: readonly (infer T)[] }
          ? TypeOf<T, S>
          : S extends { type: infer T }
            ? TypeOf<T, S>
            : unknown;

type TypeOf<T, S> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? ArrayOf<S>
          : T extends 'object'
            ? ObjectOf<S>
            : unknown;

type ArrayOf<S> = S extends { items: infer I }
  ? I extends readonly unknown[]
    ? unknown[]
    : InferJsonSchema<I>[]
  : unknown[];

type Required<S> = S extends { required: readonly (infer R)[] } ? R : never;

type Present<S, P, K> =
  K extends Required<S> ? true : K extends keyof P ? (P[K] extends { default: unknown } ? true : false) : false;

type Flat<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S> = S extends { properties: infer P }
  ? Flat<
      { -readonly [K in keyof P & string as Present<S, P, K> extends true ? K : never]: InferJsonSchema<P[K]> } & {
        -readonly [K in keyof P & string as Present<S, P, K> extends true ? never : K]?: InferJsonSchema<P[K]>;
      }
    >
  : Record<string, unknown>;
