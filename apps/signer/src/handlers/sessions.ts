/**
 * The signer's protocol sessions between their exchanges (FROST round secrets; for threshold ECDSA the
 * handle on a ceremony's or a presignature's entry in the presigning thread, or a made presignature):
 * in memory only, keyed by a random session id the signer chooses, each used once and dropped after a
 * short TTL through `wipe`, which wipes the secrets and drops the thread's entry. A restart or an
 * expired session fails that run; the API starts it again.
 */
import { randomBytes } from 'node:crypto';
import { SignerError } from '../server/errors.ts';

interface Entry<T> {
  value: T;
  walletId: string;
  expires: number;
}

export interface SessionTable<T> {
  put(walletId: string, value: T): string;
  /** Removes and answers the session; refused (409) when unknown, expired or for another wallet. */
  take(sessionId: string, walletId: string): T;
  size(): number;
}

export function createSessionTable<T>(options: { ttlMs: number; max: number; wipe: (value: T) => void; now?: () => number }): SessionTable<T> {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry<T>>();
  const sweep = () => {
    const at = now();
    for (const [id, entry] of entries) {
      if (entry.expires > at) continue;
      entries.delete(id);
      options.wipe(entry.value);
    }
  };
  // Without traffic too, no session's secrets (nor its presigning-thread entry) outlive it by long.
  setInterval(sweep, Math.min(Math.max(options.ttlMs, 1000), 30_000)).unref();
  return {
    put(walletId, value) {
      sweep();
      if (entries.size >= options.max) {
        options.wipe(value);
        throw new SignerError('FROST_SESSIONS_FULL', 'too many key ceremonies in progress; retry shortly', 503);
      }
      const id = randomBytes(16).toString('hex');
      entries.set(id, { value, walletId, expires: now() + options.ttlMs });
      return id;
    },
    take(sessionId, walletId) {
      sweep();
      const entry = entries.get(sessionId);
      if (!entry || entry.walletId !== walletId) {
        throw new SignerError('FROST_SESSION_UNKNOWN', 'no such key ceremony session (expired, already used or for another wallet); start again', 409);
      }
      entries.delete(sessionId);
      return entry.value;
    },
    size: () => entries.size,
  };
}
