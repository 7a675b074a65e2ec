// The cassette worker in a source checkout (cassette-prefetch.ts): its
// TypeScript goes through tsx, as bin/toolmark.js runs the main thread's.
// The compiled toolmark starts dist/…/cassette-worker.js instead.
const { register } = await import('tsx/esm/api');
register();
await import('./cassette-worker.ts');
