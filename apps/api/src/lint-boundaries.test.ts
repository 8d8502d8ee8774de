import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './config.ts';

// Probe files written into the real source trees, so the repository's own eslint.config.js (with
// type information) judges them exactly as `npm run lint` would.
const probes: string[] = [];
afterAll(() => {
  for (const file of probes) rmSync(file, { force: true });
});

async function lintProbe(relativePath: string, source: string): Promise<string[]> {
  const file = path.join(repoRoot, relativePath);
  probes.push(file);
  writeFileSync(file, source);
  const [result] = await new ESLint({ cwd: repoRoot }).lintFiles([file]);
  return result!.messages.map((m) => `${m.ruleId}: ${m.message.split('\n')[0]}`);
}

describe('npm run lint', () => {
  it('refuses db, express and chains imports in the domain', async () => {
    const messages = await lintProbe(
      'packages/domain/src/lint-probe.ts',
      "import express from 'express';\nimport { openDatabase } from '@wallet/db';\nexport const probe = [express, openDatabase];\n",
    );
    expect(messages.filter((m) => m.startsWith('@typescript-eslint/no-restricted-imports'))).toHaveLength(2);
  });

  it('refuses server code in the console but allows the router type', async () => {
    const messages = await lintProbe(
      'apps/admin/src/lint-probe.ts',
      "import type { AppRouter } from '@wallet/api/trpc';\nimport { createServices } from '@wallet/api';\nexport const probe: [unknown, AppRouter | undefined] = [createServices, undefined];\n",
    );
    expect(messages).toEqual([expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*only types from the API/)]);
  });

  it('refuses devnet code in production modules and floating promises anywhere', async () => {
    const messages = await lintProbe(
      'apps/api/src/lint-probe.ts',
      "import { startAnvil } from '@wallet/chains/devnets';\nasync function work() {}\nexport function probe() {\n  work();\n  return startAnvil;\n}\n",
    );
    expect(messages).toContain('@typescript-eslint/no-floating-promises: Promises must be awaited, end with a call to .catch, end with a call to .then with a rejection handler or be explicitly marked as ignored with the `void` operator.');
    expect(messages.some((m) => /no-restricted-imports: .*Devnet code/.test(m))).toBe(true);
  });
});
