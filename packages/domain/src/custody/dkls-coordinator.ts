/**
 * The API's key vault for threshold ECDSA (DKLs23) 2-of-3 wallets on secp256k1: the API is
 * participant 1 and starts every exchange, the signer process participant 2, the offline recovery
 * key participant 3. Neither online process ever holds the key.
 *
 * - A new `threshold` wallet comes from key generation in 5 exchanges (DKG, then OT setup); the API
 *   checks that both sides agree on the public key and OT setup, seals its share under its own KEK
 *   (`api`) and its contribution to participant 3 to the recovery key. Its rounds, like an OT
 *   setup's and a refresh's, run in the presigning thread (dkls-party-host.ts): this side relays
 *   their messages and seals the share from the encoding the thread answers.
 * - A signature runs the chain operation here with a key whose `signDigest` (dkls-sign.ts) takes a
 *   presignature from this vault's pool (dkls-pool.ts) and finishes in one exchange, or makes one in
 *   two exchanges and finishes in a third; the signer derives the digest itself. Presignatures live
 *   only in the presigning thread's memory and serve one digest; a retried request uses another.
 * - After an abort the signer marks the wallet's OT setup unusable; this side runs a fresh OT setup
 *   (4 exchanges) before its next signature and stores the renewed shares through `renewShares`.
 *
 * This module holds only the API's own share, for one operation; it never joins shares.
 */
import { ThresholdEcdsaError } from '@wallet/threshold-ecdsa';
import { ApiError } from '../errors.ts';
import { signOperation } from '../signing/signers.ts';
import type { KeyMaterial } from '../signing/types.ts';
import { dklsDkgContext, dklsShareSetupId, openDklsSharePlain, sealDklsShareBytes, secp256k1KeyOfWallet, type SharePlain } from './dkls-share.ts';
import { threadKeygenParty, threadOtSetupParty, type AsyncParty, type PartyMade } from './dkls-party-host.ts';
import { createPresignPool, type PresignPool, type PresignPoolOptions } from './dkls-pool.ts';
import { sharedPoolPresignThread, sharedPresignThread, type PresignThread } from './dkls-presign-host.ts';
import { DKLS_METHODS, type DklsExchange, type DklsSealed, type DklsStepResult } from './dkls-rpc.ts';
import { createDklsSigner } from './dkls-sign.ts';
import { latestShare, type VaultCall } from './frost-coordinator.ts';
import { sealToRecovery, type RecoveryPublicKey } from './recovery-seal.ts';
import type { EncryptedShare, KekProvider } from './types.ts';
import type { KeyVault, NewWalletKey, VaultWallet, WalletSignRequest, WalletSignResult } from './vault.ts';

export interface ThresholdVaultDeps {
  remote: KeyVault;
  call: VaultCall;
  keks: KekProvider;
  recovery: () => RecoveryPublicKey;
  /**
   * Stores a wallet's re-sealed threshold shares in one transaction, each replacing the stored share
   * of its role and epoch: both after a fresh OT setup, or the API's alone marked unusable after
   * this side aborted.
   */
  renewShares?: (walletId: string, shares: EncryptedShare[], reason: 'ot-renewal' | 'ot-unusable') => Promise<void>;
  /** Fault injection in tests (CUSTODY_CRASH_AT): called at each step a test may kill the process at. */
  crashAt?: (point: 'dkls-presigned' | 'dkls-final') => void;
  /**
   * The presigning thread (default: this process's two, on demand and the pool's at nice 10; a given
   * one serves both) and the presignature pool's bounds; `pool: false`
   * for a vault that signs once (a refresh's or a conversion's check), which keeps no pool.
   */
  presign?: { thread?: PresignThread; pool?: PresignPoolOptions | false };
}

/** A wallet whose signatures are threshold ECDSA: both online DKLs23 shares stored. */
export function isThresholdEcdsaWallet(wallet: Pick<VaultWallet, 'scheme'>, shares: EncryptedShare[]): boolean {
  return wallet.scheme === 'DKLS' && shares.some((s) => s.role === 'dkls-api') && shares.some((s) => s.role === 'dkls-signer');
}

const internal = (message: string) => new ApiError(500, 'INTERNAL_ERROR', message);

/**
 * A threshold session that could not complete (an abort on either side, a lost session, an OT
 * setup that must be renewed first): 503 SIGNER_UNAVAILABLE for the caller, nothing signed. The
 * signer's code rides along out of the response body (`signerCode`, not enumerable) for this module.
 */
export function thresholdRefusal(signerCode: string): ApiError {
  const error = new ApiError(503, 'SIGNER_UNAVAILABLE', 'The threshold signing session could not complete; nothing was signed. Retry the request.');
  Object.defineProperty(error, 'signerCode', { value: signerCode, enumerable: false });
  return error;
}

const signerCodeOf = (error: unknown) => (error instanceof ApiError ? (error as ApiError & { signerCode?: string }).signerCode : undefined);

/** Runs a protocol with the signer: participant 1 sends its messages, the signer answers its own, until both are done. */
async function exchange<R>(party: AsyncParty<R>, start: (messages: Uint8Array[]) => Promise<DklsExchange>, call: VaultCall, walletId: string): Promise<{ result: R; last: DklsStepResult | null }> {
  return continueExchange(party, await start(await party.first()), call, walletId);
}

/**
 * Goes on from the signer's `answer`: `party` steps through its messages, and what it makes (after
 * `outbox`, this side's messages not sent yet) goes in the next `step`, until both sides are done.
 */
export async function continueExchange<R>(
  party: AsyncParty<R>,
  answer: DklsExchange | DklsStepResult,
  call: VaultCall,
  walletId: string,
  outbox: Uint8Array[] = [],
): Promise<{ result: R; last: DklsStepResult | null }> {
  let last: DklsStepResult | null = null;
  for (;;) {
    outbox.push(...(await party.step(answer.messages)));
    if (answer.done) {
      if (!party.done || outbox.length > 0) throw internal('the signer finished the protocol before this side');
      return { result: party.result(), last };
    }
    if (outbox.length === 0) throw internal('the threshold protocol stalled');
    last = await call<DklsStepResult>(DKLS_METHODS.step, { sessionId: answer.sessionId, walletId, messages: outbox });
    answer = last;
    outbox = [];
  }
}

/** A ceremony's outcome as the bytes `sealDklsShareBytes` seals. */
export const plainOf = (made: PartyMade): SharePlain => ({ plain: made.share, partyId: made.partyId, publicKey: made.publicKey, otSetupId: made.otSetupId });

/** A protocol failure on this side (an abort, or a refusal in the middle): nothing is released. */
function translate(error: unknown, what: string): never {
  if (error instanceof ApiError) throw error;
  if (error instanceof ThresholdEcdsaError && (error.code === 'ABORTED' || error.code === 'OT_UNUSABLE')) throw thresholdRefusal(`DKLS_${error.code}`);
  throw internal(`the threshold ${what} with the signer failed; nothing was stored`);
}

export function createThresholdKeyVault({ remote, call, keks, recovery, renewShares, crashAt, presign }: ThresholdVaultDeps): KeyVault {
  const thread = presign?.thread ?? sharedPresignThread();
  const poolThread = presign?.thread ?? sharedPoolPresignThread();

  async function createThresholdWalletKey(walletId: string): Promise<NewWalletKey> {
    const party = threadKeygenParty(thread, 1, dklsDkgContext(walletId));
    try {
      const { result: made, last } = await exchange(party, (messages) => call<DklsExchange>(DKLS_METHODS.keygenStart, { walletId, messages }), call, walletId);
      const sealed: DklsSealed | null = last?.sealed ?? null;
      if (!sealed || !Buffer.from(sealed.publicKey).equals(Buffer.from(made.publicKey)) || sealed.otSetupId !== made.otSetupId) {
        throw internal('the signer finished the key generation with another public key or OT setup');
      }
      if (sealed.signerShare.role !== 'dkls-signer' || sealed.signerShare.epoch !== 0 || sealed.recoveryShare?.role !== 'recovery-signer' || dklsShareSetupId(sealed.signerShare) !== made.otSetupId) {
        throw internal('the signer answered shares of another role, epoch or OT setup');
      }
      return {
        publicKey: Uint8Array.from(made.publicKey),
        shares: [
          sealDklsShareBytes(keks.current('api'), walletId, 'dkls-api', plainOf(made), 0),
          sealed.signerShare,
          sealToRecovery(recovery(), walletId, 'recovery-api', made.publicKey, 0, { kind: 'ecdsa-contribution', contribution: made.offline }),
          sealed.recoveryShare,
        ],
        clientUserShare: null,
      };
    } catch (error) {
      translate(error, 'key generation');
    } finally {
      party.abandon();
    }
  }

  /** The API's share as plaintext bytes for the thread (which decodes and checks it). */
  function openApiShare(wallet: VaultWallet, sealed: EncryptedShare): SharePlain {
    try {
      return openDklsSharePlain(keks, wallet.id, 'dkls-api', sealed, secp256k1KeyOfWallet(wallet));
    } catch {
      throw internal("the API's threshold share of this wallet cannot be opened");
    }
  }

  /** A fresh OT setup for both shares; answers the renewed sealed shares (already stored when `renewShares` is set). */
  async function renewOt(wallet: VaultWallet, apiSealed: EncryptedShare, signerSealed: EncryptedShare): Promise<[EncryptedShare, EncryptedShare]> {
    const party = threadOtSetupParty(thread, openApiShare(wallet, apiSealed));
    try {
      const first = await party.first().catch((error: unknown) => {
        // The thread decodes and checks the share (as openDklsShare does on this thread).
        if (error instanceof ThresholdEcdsaError && error.code === 'INVALID_INPUT') throw internal("the API's threshold share of this wallet cannot be opened");
        throw error;
      });
      const { result: made, last } = await continueExchange(party, await call<DklsExchange>(DKLS_METHODS.otSetupStart, { wallet, share: signerSealed, messages: first }), call, wallet.id);
      const sealed = last?.sealed;
      if (!sealed || sealed.otSetupId !== made.otSetupId || sealed.signerShare.epoch !== signerSealed.epoch) throw internal('the signer finished the OT setup with another setup or epoch');
      const renewed: [EncryptedShare, EncryptedShare] = [sealDklsShareBytes(keks.current('api'), wallet.id, 'dkls-api', plainOf(made), apiSealed.epoch), sealed.signerShare];
      await renewShares?.(wallet.id, renewed, 'ot-renewal');
      return renewed;
    } catch (error) {
      translate(error, 'OT setup');
    } finally {
      party.abandon();
    }
  }

  let pool: PresignPool | null = null;
  const signer = createDklsSigner({
    call, keks, thread, poolThread, renewShares, crashAt, refusal: thresholdRefusal, signerCodeOf,
    get pool() {
      return pool;
    },
  });
  if (presign?.pool !== false) pool = createPresignPool({ fill: signer.fill }, presign?.pool);

  /** The signing capability of one wallet for one operation: each `signDigest` is one threshold signature. */
  function keyMaterial(request: WalletSignRequest, apiSealed: EncryptedShare, signerSealed: EncryptedShare): KeyMaterial {
    const material = signer.keyMaterial(request, apiSealed, signerSealed, dklsShareSetupId(apiSealed) ?? '');
    return {
      ...material,
      signDigest: async (digest) => {
        try {
          return await material.signDigest(digest);
        } catch (error) {
          translate(error, 'signature');
        }
      },
    };
  }

  async function signThreshold(request: WalletSignRequest): Promise<WalletSignResult> {
    let apiSealed = latestShare(request.shares, 'dkls-api')!;
    let signerSealed = latestShare(request.shares, 'dkls-signer')!;
    const op = signOperation(request.wallet.type, request.operation);
    const signed = async () => {
      const result = await op.sign(keyMaterial(request, apiSealed, signerSealed), request.input);
      pool?.noteSigned(request.wallet, apiSealed, signerSealed, dklsShareSetupId(apiSealed) ?? '');
      return { ...result, chainId: result.chainId ?? null };
    };
    try {
      return await signed();
    } catch (error) {
      // An aborted session (either side) left the wallet's OT setup unusable, or the signer finished a
      // newer OT setup whose shares were never stored (a renewal or refresh killed before the write):
      // renew it from the stored shares, then sign once more.
      const code = signerCodeOf(error);
      if (code !== 'DKLS_OT_UNUSABLE' && code !== 'DKLS_OT_SETUP_RETIRED') throw error;
      [apiSealed, signerSealed] = await renewOt(request.wallet, apiSealed, signerSealed);
      return signed();
    }
  }

  const vault: KeyVault = {
    ...remote,
    async createWalletKey(request) {
      if (request.scheme === 'DKLS' && request.custodyMode === 'threshold' && !request.clientHeldUserShare) return createThresholdWalletKey(request.walletId);
      return remote.createWalletKey(request);
    },
    async sign(request) {
      if (isThresholdEcdsaWallet(request.wallet, request.shares)) return signThreshold(request);
      return remote.sign(request);
    },
  };
  if (pool) poolsByVault.set(vault, pool);
  return vault;
}

const poolsByVault = new WeakMap<KeyVault, PresignPool>();

/** The presignature pool of a vault made by {@link createThresholdKeyVault} (tests, the bench). */
export function presignPoolOf(vault: KeyVault): PresignPool | undefined {
  return poolsByVault.get(vault);
}
