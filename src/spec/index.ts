/** The spec layer: zod schemas and types shared by every part. Imports nothing of ours. */
export * from './json.ts';
export * from './tool-error.ts';
export * from './tool-call.ts';
export * from './model.ts';
export * from './surface.ts';
export * from './task.ts';
export * from './trial.ts';
export * from './cassette.ts';
export * from './summary.ts';
export * from './errors.ts';
export * from './action.ts';
export * from './request-hash.ts';
export * from './config.ts';
export * from './manifest.ts';
export * from './comparison.ts';
export * from './tool-name.ts';
export * from './tool-file.ts';
