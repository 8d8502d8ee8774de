/**
 * One threshold ECDSA (DKLs23) signature, the API's side (participant 1): the presignature comes from
 * the pool when one of the current shares is ready (1 exchange: `signFinish`), else it is made on
 * demand (`signStart`, one `step`, then `signFinish`: 3 exchanges). Either way the rounds' computation
 * runs in the presigning thread (this side decrypts its sealed share for it and relays the messages),
 * and the message-dependent round here.
 *
 * A pooled presignature the signer no longer holds (restarted, expired) or refuses as stale (its
 * shares were refreshed, renewed or marked unusable since) is dropped, and the signature is made on
 * demand: nothing was marked used or signed with it.
 */
import { ThresholdEcdsaError, type Presignature } from '@wallet/threshold-ecdsa';
import { ApiError } from '../errors.ts';
import type { KeyMaterial } from '../signing/types.ts';
import { openDklsShare, openDklsSharePlain, sealDklsShare, secp256k1KeyOfWallet } from './dkls-share.ts';
import type { PooledPresignature, PresignPool } from './dkls-pool.ts';
import type { PresignThread } from './dkls-presign-host.ts';
import { DKLS_METHODS, type DklsExchange, type DklsFinish } from './dkls-rpc.ts';
import type { VaultCall } from './frost-coordinator.ts';
import type { EncryptedShare, KekProvider } from './types.ts';
import type { VaultWallet, WalletSignRequest } from './vault.ts';

export interface DklsSignDeps {
  call: VaultCall;
  keks: KekProvider;
  /** The presigning thread of on-demand signatures, and the (lower-priority) one of the pool's refills. */
  thread: PresignThread;
  poolThread: PresignThread;
  pool: PresignPool | null;
  renewShares?: (walletId: string, shares: EncryptedShare[], reason: 'ot-renewal' | 'ot-unusable') => Promise<void>;
  crashAt?: (point: 'dkls-presigned' | 'dkls-final') => void;
  refusal: (signerCode: string) => ApiError;
  signerCodeOf: (error: unknown) => string | undefined;
}

/** The signer's answers to a pooled `signFinish` that mean it used nothing: sign on demand instead. */
const POOL_MISSES = new Set(['FROST_SESSION_UNKNOWN', 'DKLS_PRESIGNATURE_STALE']);

const internal = (message: string) => new ApiError(500, 'INTERNAL_ERROR', message);

export function createDklsSigner(deps: DklsSignDeps) {
  const { call, keks } = deps;

  /** After this side aborted: its share is stored marked unusable before the refusal leaves, so these correlations never serve again. */
  async function storeUnusable(wallet: VaultWallet, apiSealed: EncryptedShare): Promise<void> {
    const share = openDklsShare(keks, wallet.id, 'dkls-api', apiSealed, secp256k1KeyOfWallet(wallet));
    try {
      share.markOtUnusable();
      await deps.renewShares?.(wallet.id, [sealDklsShare(keks.current('api'), wallet.id, 'dkls-api', share, apiSealed.epoch)], 'ot-unusable');
    } finally {
      share.wipe();
    }
  }

  const aborted = (error: unknown) => error instanceof ThresholdEcdsaError && error.code === 'ABORTED';

  /** The message-independent rounds (2 exchanges) in the thread; answers the presignature and the signer's session id. */
  async function presign(wallet: VaultWallet, apiSealed: EncryptedShare, signerSealed: EncryptedShare, pooled: boolean, requestId?: string | null) {
    const thread = pooled ? deps.poolThread : deps.thread;
    const publicKey = secp256k1KeyOfWallet(wallet);
    let opened;
    try {
      opened = openDklsSharePlain(keks, wallet.id, 'dkls-api', apiSealed, publicKey);
    } catch {
      throw internal("the API's threshold share of this wallet cannot be opened");
    }
    // A refill gives way to the signatures in flight before each of its rounds (dkls-pool.ts).
    const pace = async () => {
      if (pooled) await deps.pool?.quiet();
    };
    await pace();
    const first = await thread.open({ share: opened.plain, partyId: opened.partyId, publicKey, otSetupId: opened.otSetupId, first: true, messages: [] }).catch((error) => {
      if (error instanceof ThresholdEcdsaError && error.code === 'OT_UNUSABLE') throw deps.refusal('DKLS_OT_UNUSABLE');
      throw error;
    });
    const { key } = first;
    let presignature: Presignature | null = null;
    try {
      let answer = await call<DklsExchange>(DKLS_METHODS.signStart, { wallet, share: signerSealed, messages: first.messages, ...(pooled ? { pool: true } : {}) }, requestId);
      for (;;) {
        await pace();
        const round = await thread.step(key, answer.messages);
        presignature = round.presignature;
        if (answer.done) {
          if (presignature === null || round.messages.length > 0) throw internal('the signer finished the protocol before this side');
          return { presignature, sessionId: answer.sessionId };
        }
        if (round.messages.length === 0) throw internal('the threshold protocol stalled');
        answer = await call<DklsExchange>(DKLS_METHODS.step, { sessionId: answer.sessionId, walletId: wallet.id, messages: round.messages });
      }
    } catch (error) {
      presignature?.discard();
      await thread.drop(key).catch(() => undefined);
      if (aborted(error)) await storeUnusable(wallet, apiSealed);
      throw error;
    }
  }

  /** The final exchange with a made presignature (consumed here whatever happens); answers the verified signature. */
  async function finish(request: WalletSignRequest, apiSealed: EncryptedShare, made: { presignature: Presignature; sessionId: string }, digest: Uint8Array) {
    const { wallet } = request;
    try {
      const pending = made.presignature.prepareFinalMessage(digest);
      const { message } = await call<DklsFinish>(
        DKLS_METHODS.signFinish,
        { sessionId: made.sessionId, wallet, operation: request.operation, input: request.input, requestId: request.requestId, action: request.action, digest, message: pending.message },
        request.requestId,
      );
      deps.crashAt?.('dkls-final');
      const signature = pending.finish(message);
      if (signature.recovery > 1) throw internal('unrepresentable secp256k1 recovery id');
      return { signature: signature.compact, recoveryId: signature.recovery as 0 | 1 };
    } catch (error) {
      made.presignature.discard();
      if (aborted(error)) await storeUnusable(wallet, apiSealed);
      throw error;
    }
  }

  /** A pooled presignature's signature, or null when the signer no longer holds it (nothing was used: sign on demand). */
  async function finishPooled(request: WalletSignRequest, apiSealed: EncryptedShare, entry: PooledPresignature, digest: Uint8Array) {
    try {
      return await finish(request, apiSealed, entry, digest);
    } catch (error) {
      if (POOL_MISSES.has(deps.signerCodeOf(error) ?? '')) return null;
      throw error;
    }
  }

  return {
    /** One `signDigest` of the chain operation: pooled when ready, else on demand. */
    keyMaterial(request: WalletSignRequest, apiSealed: EncryptedShare, signerSealed: EncryptedShare, otSetupId: string): KeyMaterial {
      const { wallet } = request;
      return {
        address: wallet.address,
        publicKey: secp256k1KeyOfWallet(wallet),
        signEd25519: async () => {
          throw internal('a secp256k1 wallet makes no Ed25519 signature');
        },
        signDigest: async (digest) => {
          const sign = async () => {
            const entry = deps.pool?.take(wallet.id, apiSealed.epoch, otSetupId);
            if (entry) {
              const signed = await finishPooled(request, apiSealed, entry, digest);
              if (signed) return signed;
            }
            const made = await presign(wallet, apiSealed, signerSealed, false, request.requestId);
            deps.crashAt?.('dkls-presigned');
            return finish(request, apiSealed, made, digest);
          };
          return deps.pool ? deps.pool.track(sign()) : sign();
        },
      };
    },
    /** One presignature for the pool. */
    fill: (wallet: VaultWallet, apiSealed: EncryptedShare, signerSealed: EncryptedShare) => presign(wallet, apiSealed, signerSealed, true),
  };
}
