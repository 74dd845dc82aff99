import { defineConfig } from 'vitest/config';

/**
 * `make test-console`: the console and the class report in a real browser (needs chromium;
 * test/browser/run.sh installs it).
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
