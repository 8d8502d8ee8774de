/**
 * The signature log over RPC, read-only: `log.verify` checks the hash chain, `log.read` pages its
 * entries (for `npm run custody -- verify-log`, which compares them with the API's audit log). The
 * entries hold wallet ids, digests and request ids: no key material.
 */
import { z } from 'zod';
import { SignerError } from '../server/errors.ts';
import type { SignerHandler } from '../server/server.ts';
import type { SignerStore } from '../store/store.ts';

const readParams = z.strictObject({ afterSeq: z.number().int().min(0), limit: z.number().int().min(1).max(1000) });

export function createLogHandlers(store: Pick<SignerStore, 'verifyLog' | 'readLog'>): Record<string, SignerHandler> {
  return {
    'log.verify': async () => store.verifyLog(),
    'log.read': async (params) => {
      const parsed = readParams.safeParse(params);
      if (!parsed.success) throw new SignerError('INVALID_PARAMS', 'log.read takes { afterSeq, limit (1..1000) }', 400);
      const { afterSeq, limit } = parsed.data;
      const entries = [];
      for await (const entry of store.readLog()) {
        if (entry.seq <= afterSeq) continue;
        entries.push(entry);
        if (entries.length === limit) break;
      }
      return { entries, next: entries.length === limit ? entries.at(-1)!.seq : null };
    },
  };
}
