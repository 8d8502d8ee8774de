/**
 * The API's pool of threshold ECDSA (DKLs23) presignatures: the message-independent rounds run
 * ahead of time for wallets that signed recently in this process, so that a signature needs only
 * its final exchange. A cache in this process's memory only (the presignatures as objects, made in the
 * presigning thread, with the signer's session ids and the epoch and OT setup of the shares they
 * were made with), wiped when dropped; never stored or sent. Losing the pool
 * loses only precomputation.
 *
 * - Active wallet: signed in this process within `activeForMs` (the shares it signed with are kept,
 *   sealed, to presign with).
 * - Bounds: `perWallet` ready or in flight per wallet, `total` over all wallets, each at most
 *   `maxAgeMs` old (below the signer's own bound, so the signer does not drop them first).
 * - `take` answers a presignature made with the given epoch and OT setup, or none; older ones of that
 *   wallet (another epoch or setup, or too old) are dropped on the way.
 * - `topUp` (the background job, apps/api/src/workers/presign-pool-worker.ts) starts fills for the
 *   wallets at or below their low-water mark (`lowWater` ready or in flight), each then filled up to
 *   its bound, at most `concurrency` at a time.
 * - Refills give way to signatures: `track` counts the signatures in flight in this process, and a
 *   fill waits for none (or `yieldMs` at most) before each of its steps (`quiet`), so that the
 *   presigning threads and both event loops serve a signature before a refill's next round.
 */
import type { Presignature } from '@wallet/threshold-ecdsa';
import type { EncryptedShare } from './types.ts';
import type { VaultWallet } from './vault.ts';

export interface PresignPoolOptions {
  perWallet?: number;
  total?: number;
  maxAgeMs?: number;
  activeForMs?: number;
  concurrency?: number;
  /** A wallet is refilled once it holds at most this many (ready or in flight), then up to `perWallet`. */
  lowWater?: number;
  /** The longest a fill's step waits for the signatures in flight to finish. */
  yieldMs?: number;
  now?: () => number;
}

/** A presignature ready for one digest, and the signer's session of it. */
export interface PooledPresignature {
  presignature: Presignature;
  sessionId: string;
  epoch: number;
  otSetupId: string;
  createdAt: number;
}

export interface PresignPool {
  take(walletId: string, epoch: number, otSetupId: string): PooledPresignature | null;
  /** Records a signature: the wallet is active, presigned with these shares from now on. */
  noteSigned(wallet: VaultWallet, apiShare: EncryptedShare & { epoch: number }, signerShare: EncryptedShare, otSetupId: string): void;
  /** Starts the fills due (bounded) and waits for them; true when more are due at once. */
  topUp(): Promise<boolean>;
  /** Counts a signature of this process as in flight until it settles (fills give way to it). */
  track<T>(signature: Promise<T>): Promise<T>;
  /** Resolves once no signature is in flight, or after `yieldMs`: what a fill awaits before each step. */
  quiet(): Promise<void>;
  size(walletId?: string): number;
  /** Drops every pooled presignature and stops filling. */
  close(): Promise<void>;
}

interface Active {
  wallet: VaultWallet;
  apiShare: EncryptedShare;
  signerShare: EncryptedShare;
  otSetupId: string;
  lastSigned: number;
  ready: PooledPresignature[];
  inFlight: number;
  /** Below the low-water mark since: filled up to the bound. */
  refilling: boolean;
  /** After a failed fill, no other before this time. */
  pausedUntil: number;
}

export interface PresignFiller {
  /** Makes one presignature with these shares, for the pool (the signer keeps its side in its own pool). */
  fill(wallet: VaultWallet, apiShare: EncryptedShare, signerShare: EncryptedShare): Promise<{ presignature: Presignature; sessionId: string }>;
}

const pools = new Set<PresignPool>();

/** The pools of this process's API vaults, which the background job tops up. */
export function presignPools(): ReadonlySet<PresignPool> {
  return pools;
}

export function createPresignPool(filler: PresignFiller, options: PresignPoolOptions = {}): PresignPool {
  const perWallet = options.perWallet ?? 4;
  const total = options.total ?? 256;
  const maxAgeMs = options.maxAgeMs ?? 9 * 60_000;
  const activeForMs = options.activeForMs ?? 10 * 60_000;
  const concurrency = options.concurrency ?? 1;
  const lowWater = Math.min(options.lowWater ?? 1, perWallet - 1);
  const yieldMs = options.yieldMs ?? 50;
  const now = options.now ?? Date.now;
  const wallets = new Map<string, Active>();
  let closed = false;
  let signing = 0;
  const waiters = new Set<() => void>();
  const held = (a: Active) => a.ready.length + a.inFlight;
  /** Refilling from the low-water mark up to the bound (the mark's hysteresis). */
  const wantsFill = (a: Active) => {
    if (held(a) <= lowWater) a.refilling = true;
    else if (held(a) >= perWallet) a.refilling = false;
    return a.refilling && held(a) < perWallet;
  };

  const drop = (entry: PooledPresignature) => entry.presignature.discard();
  const count = () => [...wallets.values()].reduce((n, a) => n + a.ready.length + a.inFlight, 0);

  /** Drops what can no longer serve: too old, of other shares, of a wallet no longer active. */
  function prune(at: number) {
    for (const [walletId, active] of wallets) {
      active.ready = active.ready.filter((entry) => {
        const keep = at - entry.createdAt < maxAgeMs && entry.epoch === active.apiShare.epoch && entry.otSetupId === active.otSetupId;
        if (!keep) drop(entry);
        return keep;
      });
      if (at - active.lastSigned >= activeForMs) {
        active.ready.forEach(drop);
        active.ready = [];
        if (active.inFlight === 0) wallets.delete(walletId);
      }
    }
  }

  async function fillOne(active: Active) {
    active.inFlight++;
    const { epoch } = active.apiShare;
    const otSetupId = active.otSetupId;
    try {
      const made = await filler.fill(active.wallet, active.apiShare, active.signerShare);
      const entry: PooledPresignature = { ...made, epoch, otSetupId, createdAt: now() };
      // The shares may have changed (or the pool closed) while it was made.
      if (closed || epoch !== active.apiShare.epoch || otSetupId !== active.otSetupId || wallets.get(active.wallet.id) !== active) drop(entry);
      else active.ready.push(entry);
    } catch {
      // The signer refused (full, an OT setup to renew, unreachable): the next signature on demand sorts it out.
      active.pausedUntil = now() + 5_000;
    } finally {
      active.inFlight--;
    }
  }

  const pool: PresignPool = {
    take(walletId, epoch, otSetupId) {
      const active = wallets.get(walletId);
      if (!active) return null;
      const at = now();
      while (active.ready.length > 0) {
        const entry = active.ready.shift()!;
        if (entry.epoch === epoch && entry.otSetupId === otSetupId && at - entry.createdAt < maxAgeMs) return entry;
        drop(entry);
      }
      return null;
    },
    noteSigned(wallet, apiShare, signerShare, otSetupId) {
      if (closed) return;
      const at = now();
      const active = wallets.get(wallet.id);
      if (active) Object.assign(active, { wallet, apiShare, signerShare, otSetupId, lastSigned: at });
      else wallets.set(wallet.id, { wallet, apiShare, signerShare, otSetupId, lastSigned: at, ready: [], inFlight: 0, refilling: true, pausedUntil: 0 });
    },
    async topUp() {
      if (closed) return false;
      const at = now();
      prune(at);
      const started: Promise<void>[] = [];
      let room = total - count();
      // Fewest ready first, so that every active wallet gets its first presignature early.
      const due = [...wallets.values()].filter((a) => a.pausedUntil <= at && at - a.lastSigned < activeForMs && wantsFill(a)).sort((a, b) => held(a) - held(b));
      for (const active of due) {
        while (started.length < concurrency && room > 0 && wantsFill(active)) {
          started.push(fillOne(active));
          room--;
        }
      }
      await Promise.all(started);
      return started.length > 0 && [...wallets.values()].some((a) => a.pausedUntil <= now() && wantsFill(a)) && count() < total;
    },
    async track(signature) {
      signing++;
      try {
        return await signature;
      } finally {
        if (--signing === 0) for (const wake of [...waiters]) wake();
      }
    },
    quiet() {
      if (signing === 0 || closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, yieldMs);
        waiters.add(wake);
      });
    },
    size(walletId) {
      if (walletId === undefined) return [...wallets.values()].reduce((n, a) => n + a.ready.length, 0);
      return wallets.get(walletId)?.ready.length ?? 0;
    },
    async close() {
      closed = true;
      pools.delete(pool);
      for (const active of wallets.values()) active.ready.forEach(drop);
      wallets.clear();
    },
  };
  pools.add(pool);
  return pool;
}
