import { defineConfig } from 'vitest/config';

/**
 * One vitest setup for every workspace: tests beside the code, files one at a time (2 cores, shared
 * databases), in one module graph (`isolate: false`): re-importing the app for every file cost more
 * than the tests themselves (10 API test files: 68 s isolated, 33 s shared).
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    isolate: false,
    // Suites that need PostgreSQL register their tests only when TEST_DATABASE_URL is set (never as
    // skipped); without it such a file has no test, which is not a failure.
    passWithNoTests: true,
  },
});
