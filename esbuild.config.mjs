/**
 * The service's entry, bundled into one file: `npm run build` compiles app/ with tsc, then this replaces
 * dist/app/api/main.js (tsc's output of app/api/main.ts) with app/api/main.ts and everything it imports (hono, zod,
 * @hono/node-server included) in one ES module. Loading its modules one by one (most of them zod's) was
 * most of the cold start (docs/hardening.md, "Cold start").
 * The other entries (CLIs, console, acceptance runner) stay as tsc wrote them;
 * test/api/bundle.test.ts builds this bundle with these options and runs it.
 *
 * Usage: node esbuild.config.mjs [outfile]
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const serviceBundle = {
  entryPoints: [fileURLToPath(new URL('app/api/main.ts', import.meta.url))],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Whitespace and syntax minified: about a quarter less to compile at start. Whether the start is
  // shorter for it is within this machine's spread (docs/hardening.md, "Cold start"). Identifiers are
  // not minified, so a logged error or a profile reads as the source does.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: false,
  legalComments: 'none',
  logLevel: 'warning',
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await build({ ...serviceBundle, outfile: process.argv[2] ?? 'dist/app/api/main.js', allowOverwrite: true });
}
