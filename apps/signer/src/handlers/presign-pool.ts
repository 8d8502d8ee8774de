/**
 * The signer's pooled threshold ECDSA presignatures: sessions the API asked to presign ahead of time
 * (`signStart` with `pool: true`), kept after their message-independent rounds until a `signFinish`
 * uses one (made in the presigning thread, then held here as objects, never stored), with the wallet,
 * the OT setup and the share epoch they were made with, under bounds of its own
 * (apart from the key ceremonies' 30 s TTL): `perWallet`, `total`, and `maxAgeMs` from the end of the
 * rounds. At a bound the oldest entry (of the wallet, else of all) makes room: the API asks for more
 * only when it holds fewer, so what it no longer holds (its restart, its own drops) goes first. A
 * compromised API can thus evict only pooled presignatures, never make one serve twice. Memory only:
 * a restart empties it, and the API then signs on demand.
 */
import { randomBytes } from 'node:crypto';
import type { Presignature } from '@wallet/threshold-ecdsa';

export interface PooledSession {
  walletId: string;
  presignature: Presignature;
  publicKey: Uint8Array;
  otSetupId: string;
  epoch: number;
}

export interface SignerPresignPoolOptions {
  perWallet?: number;
  total?: number;
  maxAgeMs?: number;
  now?: () => number;
}

export interface SignerPresignPool {
  /** Keeps a presigned session (the oldest making room at a bound); answers its session id. */
  put(session: PooledSession): string;
  /** Removes and answers the session; null when unknown, expired or of another wallet. */
  take(sessionId: string, walletId: string): PooledSession | null;
  size(walletId?: string): number;
}

export function createSignerPresignPool(drop: (session: PooledSession) => void, options: SignerPresignPoolOptions = {}): SignerPresignPool {
  const perWallet = options.perWallet ?? 4;
  const total = options.total ?? 256;
  const maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, PooledSession & { expires: number }>();
  const perWalletCount = (walletId: string) => [...entries.values()].filter((e) => e.walletId === walletId).length;
  const sweep = () => {
    const at = now();
    for (const [id, entry] of entries) {
      if (entry.expires > at) continue;
      entries.delete(id);
      drop(entry);
    }
  };
  // Without traffic too, no presignature outlives its bound.
  setInterval(sweep, Math.min(maxAgeMs, 30_000)).unref();
  /** The oldest entry (Map order is insertion order), of the wallet when given. */
  const evictOldest = (walletId?: string) => {
    for (const [id, entry] of entries) {
      if (walletId !== undefined && entry.walletId !== walletId) continue;
      entries.delete(id);
      drop(entry);
      return;
    }
  };
  const pool: SignerPresignPool = {
    put(session) {
      sweep();
      while (perWalletCount(session.walletId) >= perWallet) evictOldest(session.walletId);
      while (entries.size >= total) evictOldest();
      const id = randomBytes(16).toString('hex');
      entries.set(id, { ...session, expires: now() + maxAgeMs });
      return id;
    },
    take(sessionId, walletId) {
      sweep();
      const entry = entries.get(sessionId);
      if (!entry || entry.walletId !== walletId) return null;
      entries.delete(sessionId);
      return entry;
    },
    size: (walletId) => (walletId === undefined ? entries.size : perWalletCount(walletId)),
  };
  return pool;
}
