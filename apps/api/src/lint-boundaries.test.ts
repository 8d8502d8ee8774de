import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './config.ts';

// Probe files written into the real source trees, so the repository's own eslint.config.js (with
// type information) judges them exactly as `npm run lint` would. One ESLint run lints all of them
// (each run builds the typed program anew: seconds apiece).
const probes = {
  domain: {
    path: 'packages/domain/src/lint-probe.ts',
    source: "import express from 'express';\nimport { openDatabase } from '@wallet/db';\nexport const probe = [express, openDatabase];\n",
  },
  console: {
    path: 'apps/admin/src/lint-probe.ts',
    source: "import type { AppRouter } from '@wallet/api/trpc';\nimport { createServices } from '@wallet/api';\nexport const probe: [unknown, AppRouter | undefined] = [createServices, undefined];\n",
  },
  production: {
    path: 'apps/api/src/lint-probe.ts',
    source: "import { startAnvil } from '@wallet/chains/devnets';\nasync function work() {}\nexport function probe() {\n  work();\n  return startAnvil;\n}\n",
  },
};
const files = Object.values(probes).map((probe) => path.join(repoRoot, probe.path));
let messages: Record<keyof typeof probes, string[]>;

beforeAll(async () => {
  for (const probe of Object.values(probes)) writeFileSync(path.join(repoRoot, probe.path), probe.source);
  const results = await new ESLint({ cwd: repoRoot }).lintFiles(files);
  const of = (name: keyof typeof probes) =>
    results.find((r) => r.filePath === path.join(repoRoot, probes[name].path))!.messages.map((m) => `${m.ruleId}: ${m.message.split('\n')[0]}`);
  messages = { domain: of('domain'), console: of('console'), production: of('production') };
}, 120_000);
afterAll(() => {
  for (const file of files) rmSync(file, { force: true });
});

describe('npm run lint', () => {
  it('refuses db, express and chains imports in the domain', () => {
    expect(messages.domain.filter((m) => m.startsWith('@typescript-eslint/no-restricted-imports'))).toHaveLength(2);
  });

  it('refuses server code in the console but allows the router type', () => {
    expect(messages.console).toEqual([expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*only types from the API/)]);
  });

  it('refuses devnet code in production modules and floating promises anywhere', () => {
    expect(messages.production).toContain('@typescript-eslint/no-floating-promises: Promises must be awaited, end with a call to .catch, end with a call to .then with a rejection handler or be explicitly marked as ignored with the `void` operator.');
    expect(messages.production.some((m) => /no-restricted-imports: .*Devnet code/.test(m))).toBe(true);
  });
});
