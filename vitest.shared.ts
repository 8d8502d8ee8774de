import { defineConfig } from 'vitest/config';

/** One vitest setup for every workspace: tests beside the code, files one at a time (2 cores, shared databases). */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
