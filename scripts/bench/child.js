// Launcher of the bench's child processes: the same preloads and tsx
// registration as bin/toolmark.js for `run`/`report`, then replay-child.ts.
import { register } from 'tsx/esm/api';
import { preloadPlainModules } from '../../bin/preload.js';

await preloadPlainModules('run', []);
register();
await import('./replay-child.ts');
