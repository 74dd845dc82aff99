/**
 * `npm run build`'s last step, run as tsc compiled it: writes the console's browser bundles,
 * dist/app/console/console.js and dist/app/console/login.js, which the console serves as /console.js and
 * /login.js.
 *   node dist/app/console/client-build-cli.js [outdir]
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleClient, CLIENT_OUTDIR, CLIENT_SCRIPTS } from './client-build.js';

const outdir = process.argv[2] ?? CLIENT_OUTDIR;
for (const name of CLIENT_SCRIPTS) await writeFile(join(outdir, `${name}.js`), await bundleClient(name));
