/**
 * The signer's real vault handlers in the caller's process, for tests of the API: the same
 * parameter checks, FROST participant 2, limits and epoch rules as the signer process, over an
 * in-memory store (signature log and epochs), with every value passing through the frame codec as on the wire
 * and the signer's refusals turned into the client's `SignerRefusedError`. Never used by a service.
 */
import type { KekProvider, RecoveryPublicKey } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { SignerRefusedError } from '../client/client.ts';
import { createSignerLimits, type SignerLimitsOptions } from '../limits/limits.ts';
import { isSignerError, SignerError } from '../server/errors.ts';
import type { SignerHandler } from '../server/server.ts';
import { createMemoryThresholdStore, type ThresholdStore } from '../store/threshold-store.ts';
import { decodePayload, encodeFrame, FRAME_HEADER_BYTES } from '../transport/frames.ts';
import { createVaultHandlers } from './vault-handlers.ts';

/** A value as the other side of a wallet-signer/2 connection reads it. */
const onTheWire = (value: unknown) => decodePayload(encodeFrame(0, value).subarray(FRAME_HEADER_BYTES));

export interface MemorySignerStore {
  signatures: Array<{ walletId: string; digest: string; requestId: string | null; action?: string; presignature?: string }>;
  epochOf(walletId: string): number;
  advanceEpoch(walletId: string, epoch: number): Promise<void>;
  appendSignature(entry: { walletId: string; digest: string; requestId: string | null; action?: string; presignature?: string }): Promise<void>;
}

export function createMemorySignerStore(): MemorySignerStore {
  const epochs = new Map<string, number>();
  const signatures: MemorySignerStore['signatures'] = [];
  return {
    signatures,
    epochOf: (walletId) => epochs.get(walletId) ?? 0,
    async advanceEpoch(walletId, epoch) {
      const current = epochs.get(walletId) ?? 0;
      if (epoch <= current) throw new SignerError('EPOCH_NOT_ADVANCING', `epoch ${epoch} is not above the current epoch ${current} of this wallet`, 409);
      epochs.set(walletId, epoch);
    },
    async appendSignature(entry) {
      signatures.push({ ...entry });
    },
  };
}

export interface InProcessSigner {
  call<T>(method: string, params: unknown, requestId?: string): Promise<T>;
  store: MemorySignerStore;
  threshold: ThresholdStore;
  handlers: Record<string, SignerHandler>;
}

export function createInProcessSigner(options: {
  keks: KekProvider;
  recovery: RecoveryPublicKey;
  limits?: SignerLimitsOptions;
  store?: MemorySignerStore;
  /** Threshold ECDSA's OT setups and used presignatures, in memory by default. */
  threshold?: ThresholdStore;
  /** Replaces a handler's answer (adversarial tests: a signer that answers wrong). */
  tamper?: (method: string, result: unknown) => unknown;
}): InProcessSigner {
  const store = options.store ?? createMemorySignerStore();
  const threshold = options.threshold ?? createMemoryThresholdStore();
  const limits = createSignerLimits(options.limits ?? { perWalletPerMinute: 1_000_000, nativeValueCaps: {} });
  const handlers = createVaultHandlers({
    vault: createLocalKeyVault({ keks: options.keks }),
    log: store,
    limits,
    serviceKeyLimits: createSignerLimits({ perWalletPerMinute: 1_000_000, nativeValueCaps: {}, holder: 'service key' }),
    capsValue: (chain) => options.limits?.nativeValueCaps[chain] !== undefined,
    epochs: store,
    keks: options.keks,
    recovery: options.recovery,
    threshold,
  });
  return {
    store,
    threshold,
    handlers,
    async call<T>(method: string, params: unknown, requestId?: string): Promise<T> {
      const handler = handlers[method];
      if (!handler) throw new SignerRefusedError('SIGNER_UNKNOWN_METHOD', `no method ${method}`, 404);
      let result: unknown;
      try {
        result = await handler(onTheWire(params ?? null), { requestId: requestId ?? 'in-process', client: 'wallet-api' });
      } catch (error) {
        if (isSignerError(error)) throw new SignerRefusedError(error.code, error.message, error.status, error.details);
        throw new SignerRefusedError('SIGNER_INTERNAL', 'internal signer error', 500);
      }
      const answered = options.tamper ? options.tamper(method, result) : result;
      return onTheWire(answered ?? null) as T;
    },
  };
}
