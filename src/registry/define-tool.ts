import { markDefinedAt } from './defined-at.ts';
import type { InferSchema, SchemaSource } from './schema/index.ts';
import type { ToolSpec } from './tool-spec.ts';

/** A tool as `defineTool` takes it: its schemas kept as written, so their types reach the handler. */
export type ToolDefinition<State, Input extends SchemaSource, Output extends SchemaSource> = Omit<
  ToolSpec<State, InferSchema<Input>, InferSchema<Output>>,
  'input' | 'output'
> & {
  input: Input;
  output: Output;
};

/**
 * Define a registry tool with its handler typed from its schemas: the
 * handler's input is what `input` validates to (a zod schema's output, with
 * defaults; a JSON Schema literal's described type — see json-schema-type.ts),
 * and it must return what `output` describes (or `fail(…)`).
 *
 * The schemas are kept as written and adapted to the seam when a registry
 * or the loader first needs them, so an unusable schema is reported as a
 * load error on the tool's field instead of failing the import.
 *
 * The domain state is whatever the handler's context is annotated with;
 * `defineToolFor<State>()` fixes it for a whole domain.
 */
export function defineTool<const Input extends SchemaSource, const Output extends SchemaSource, State = any>(
  tool: ToolDefinition<State, Input, Output>,
): ToolSpec<State, InferSchema<Input>, InferSchema<Output>> {
  // Remembered so a load error about this tool can name its file and line.
  return markDefinedAt(tool) as ToolSpec<State, InferSchema<Input>, InferSchema<Output>>;
}

/** `defineTool` with the domain's state type fixed: `const tool = defineToolFor<BillingState>()`. */
export function defineToolFor<State>(): <const Input extends SchemaSource, const Output extends SchemaSource>(
  tool: ToolDefinition<State, Input, Output>,
) => ToolSpec<State, InferSchema<Input>, InferSchema<Output>> {
  return (tool) =>
    markDefinedAt(tool) as ToolSpec<State, InferSchema<typeof tool.input>, InferSchema<typeof tool.output>>;
}
