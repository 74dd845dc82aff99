/**
 * The console's browser scripts: app/console/client/console.ts (the console page) and
 * app/console/client/login.ts (the login page), each with what it imports, bundled by esbuild for the
 * browser into one file. `npm run build` writes the bundles with client-build-cli.ts; a console run from
 * source (the tests, through tsx) bundles in memory on the first request instead (assets.ts).
 */
import { fileURLToPath } from 'node:url';

/** The browser scripts, by the name of their entry in app/console/client/ and of their bundle. */
export const CLIENT_SCRIPTS = ['console', 'login'] as const;
export type ClientScript = (typeof CLIENT_SCRIPTS)[number];

/** The repository's root, from this file in app/console/ or in dist/app/console/. */
const ROOT = new URL(import.meta.url.endsWith('.ts') ? '../../' : '../../../', import.meta.url);
const clientEntry = (name: ClientScript) => fileURLToPath(new URL(`app/console/client/${name}.ts`, ROOT));
export const CLIENT_OUTDIR = fileURLToPath(new URL('dist/app/console/', ROOT));

export async function bundleClient(name: ClientScript = 'console'): Promise<string> {
  // esbuild is a build-time tool: the image's runtime has only the bundles this wrote.
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [clientEntry(name)],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const file = out.outputFiles[0];
  if (file === undefined) throw new Error(`esbuild wrote no ${name} bundle`);
  return file.text;
}
