import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Both cores (vitest's default here is one fewer than the cores: one worker): the tests mostly wait
    // on processes and sockets, so two workers halve the suite's time on a 2-core machine. The gate's
    // floods run alone after the rest (the Makefile's test target): beside another worker they were
    // refused a neighbour's requests.
    maxWorkers: 2,
  },
});
