/**
 * Operator limits of the signer, configured on its host apart from the API's policies: a
 * compromised API can make the signer sign only within them, not be an unlimited signing oracle.
 *
 * - perWalletPerMinute: signatures per wallet over a sliding 60 s window (exact: the timestamps of
 *   the last minute's admissions are kept per wallet; wallets idle for a minute are evicted, so
 *   memory follows the wallets active in the last minute). Above it: 429.
 * - nativeValueCaps: the most native value (wei, lamports) one transaction may move, per chain
 *   family; unset = no cap. Above it: 403. The handlers decode the payload and pass the value;
 *   a request with no native value (a message signature) passes null.
 * A refused request does not count towards the rate.
 */
import { SignerError } from '../server/errors.ts';

export type ChainFamily = 'EVM' | 'SOLANA';

export interface SignerLimitsOptions {
  /** Signatures per key holder (a wallet, or a service key with `holder: 'service key'`) and minute. */
  perWalletPerMinute: number;
  /** What the rate counts per (default 'wallet'): names the limit in refusals. */
  holder?: 'wallet' | 'service key';
  nativeValueCaps: Partial<Record<ChainFamily, bigint>>;
  clock?: () => number;
}

export interface SignerLimits {
  /** Throws SignerError SIGNER_LIMIT_EXCEEDED (429 rate, 403 value) or admits and counts the signature. */
  admit(walletId: string, native: { chain: ChainFamily; value: bigint } | null): void;
  /** Wallets currently tracked (for tests and metrics). */
  trackedWallets(): number;
}

const WINDOW_MS = 60_000;

interface Window {
  times: number[];
  head: number;
}

export function createSignerLimits(options: SignerLimitsOptions): SignerLimits {
  const max = options.perWalletPerMinute;
  if (!Number.isSafeInteger(max) || max < 1) throw new Error('perWalletPerMinute must be a positive integer');
  const clock = options.clock ?? Date.now;
  const holder = options.holder ?? 'wallet';
  const windows = new Map<string, Window>();
  let lastSweep = clock();

  function sweep(now: number): void {
    lastSweep = now;
    for (const [walletId, w] of windows) {
      const newest = w.times[w.times.length - 1];
      if (newest === undefined || newest <= now - WINDOW_MS) windows.delete(walletId);
    }
  }

  return {
    admit(walletId, native) {
      if (native !== null) {
        const cap = options.nativeValueCaps[native.chain];
        if (cap !== undefined && native.value > cap) {
          throw new SignerError('SIGNER_LIMIT_EXCEEDED', `the transaction moves more native value than the signer's cap for ${native.chain}`, 403, {
            limit: 'nativeValueCap',
            walletId,
            chain: native.chain,
            cap: cap.toString(),
            value: native.value.toString(),
          });
        }
      }
      const now = clock();
      if (now - lastSweep >= WINDOW_MS) sweep(now);
      const w = windows.get(walletId) ?? { times: [], head: 0 };
      while (w.head < w.times.length && w.times[w.head]! <= now - WINDOW_MS) w.head++;
      if (w.head > 64 && w.head * 2 > w.times.length) {
        w.times = w.times.slice(w.head);
        w.head = 0;
      }
      const inWindow = w.times.length - w.head;
      if (inWindow >= max) {
        throw new SignerError('SIGNER_LIMIT_EXCEEDED', `this ${holder} reached the signer's limit of ${max} signatures per minute`, 429, {
          limit: holder === 'wallet' ? 'perWalletPerMinute' : 'perServiceKeyPerMinute',
          walletId,
          max,
          windowSeconds: WINDOW_MS / 1000,
          retryAfterMs: Math.max(0, w.times[w.head]! + WINDOW_MS - now),
        });
      }
      w.times.push(now);
      windows.set(walletId, w);
    },
    trackedWallets: () => windows.size,
  };
}
