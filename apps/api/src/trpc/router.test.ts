import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { appRouter } from './router.ts';

const adminSources = fileURLToPath(new URL('../../../admin/src', import.meta.url));

/** `wallets.list` for each `trpc.wallets.list.infiniteQueryOptions(` in the console's sources. */
function infiniteQueries(): string[] {
  const files = readdirSync(adminSources, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.tsx') || file.endsWith('.ts'));
  const found = files.flatMap((file) => [...readFileSync(path.join(adminSources, file), 'utf8').matchAll(/trpc\.([\w.]+)\.infiniteQueryOptions\(/g)].map((m) => m[1]!));
  return [...new Set(found)].sort();
}

/**
 * The console pages its lists with tRPC infinite queries, which send `direction` next to the
 * cursor: a strict list input without it answers 400 `Unrecognized key: "direction"` and the
 * page shows an error box (the cases list, then the partner reviews, broke that way).
 */
describe('console router', () => {
  it('every procedure the console pages with an infinite query takes the direction it sends', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string; inputs: unknown[] } }>;
    const paged = infiniteQueries();
    expect(paged).toEqual(expect.arrayContaining(['approvalCases.list', 'partnerReviews.list', 'wallets.list']));
    const refusing = paged.filter((name) => {
      const shape = (procedures[name]?._def.inputs[0] as z.ZodObject | undefined)?.shape;
      return !shape || !('direction' in shape);
    });
    expect(refusing).toEqual([]);
  });
});
