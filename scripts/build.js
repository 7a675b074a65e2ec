// `npm run build` (and prepack): compile src/, providers/ and the synthetic
// example generator to dist/ (ignored by git), the JavaScript an installed
// toolmark runs. A source checkout never needs it: bin/toolmark.js runs the
// TypeScript there (README, "Development").
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
rmSync(new URL('dist', root), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
