// Module resolve hook for a source checkout (this repository): the shipped
// example and the tests import the package by name (`from 'toolmark'`), as
// a user's domain does; here that name means src/index.ts, not dist/.
const ENTRY = new URL('../src/index.ts', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'toolmark') return { url: ENTRY, shortCircuit: true };
  return nextResolve(specifier, context);
}
