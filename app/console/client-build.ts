/**
 * The console page's script: app/console/client/console.ts and what it imports, bundled by esbuild for
 * the browser into one file. `npm run build` runs this file (as tsc compiled it) after tsc and writes
 * dist/app/console/console.js, which the console serves as /console.js; a console run from source (the
 * tests, through tsx) bundles in memory on the first request instead.
 *
 * Usage: node dist/app/console/client-build.js [outfile]
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The repository's root, from this file in app/console/ or in dist/app/console/. */
const ROOT = new URL(import.meta.url.endsWith('.ts') ? '../../' : '../../../', import.meta.url);
export const CLIENT_ENTRY = fileURLToPath(new URL('app/console/client/console.ts', ROOT));
export const CLIENT_BUNDLE = fileURLToPath(new URL('dist/app/console/console.js', ROOT));

export async function bundleClient(): Promise<string> {
  // esbuild is a build-time tool: the image's runtime has only the bundle this wrote.
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [CLIENT_ENTRY],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const file = out.outputFiles[0];
  if (file === undefined) throw new Error('esbuild wrote no console bundle');
  return file.text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(process.argv[2] ?? CLIENT_BUNDLE, await bundleClient());
}
