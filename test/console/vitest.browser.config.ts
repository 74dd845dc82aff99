import { defineConfig } from 'vitest/config';

/**
 * `make test-console`: the console and the class report in a real browser (needs chromium;
 * test/console/run.sh installs it).
 */
export default defineConfig({
  test: {
    include: ['test/console/**/*.browser.ts', 'test/classroom/**/*.browser.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
