/**
 * The API's key vault for threshold ECDSA (DKLs23) 2-of-3 wallets on secp256k1: the API is
 * participant 1 and starts every exchange, the signer process participant 2, the offline recovery
 * key participant 3. Neither online process ever holds the key.
 *
 * - A new `threshold` wallet comes from key generation in 5 exchanges (DKG, then OT setup); the API
 *   checks that both sides agree on the public key and OT setup, seals its share under its own KEK
 *   (`api`) and its contribution to participant 3 to the recovery key.
 * - A signature runs the chain operation here with a key whose `signDigest` makes a presignature in
 *   two exchanges and finishes in a third, where the signer derives the digest itself. Presignatures
 *   live only in memory and serve one digest; a retried request makes a new one.
 * - After an abort the signer marks the wallet's OT setup unusable; this side runs a fresh OT setup
 *   (4 exchanges) before its next signature and stores the renewed shares through `renewShares`.
 *
 * This module holds only the API's own share, for one operation; it never joins shares.
 */
import { keygenParty, otSetupParty, presignParty, ThresholdEcdsaError, type KeyShare, type Party } from '@wallet/threshold-ecdsa';
import { ApiError } from '../errors.ts';
import { signOperation } from '../signing/signers.ts';
import type { KeyMaterial } from '../signing/types.ts';
import { dklsDkgContext, dklsShareSetupId, openDklsShare, sealDklsShare, secp256k1KeyOfWallet } from './dkls-share.ts';
import { DKLS_METHODS, type DklsExchange, type DklsFinish, type DklsSealed, type DklsStepResult } from './dkls-rpc.ts';
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
async function exchange<R>(party: Party<R>, start: (messages: Uint8Array[]) => Promise<DklsExchange>, call: VaultCall, walletId: string): Promise<{ result: R; last: DklsStepResult | null }> {
  return continueExchange(party, await start([party.first()]), call, walletId);
}

/**
 * Goes on from the signer's `answer`: `party` steps through its messages, and what it makes (after
 * `outbox`, this side's messages not sent yet) goes in the next `step`, until both sides are done.
 */
export async function continueExchange<R>(
  party: Party<R>,
  answer: DklsExchange | DklsStepResult,
  call: VaultCall,
  walletId: string,
  outbox: Uint8Array[] = [],
): Promise<{ result: R; last: DklsStepResult | null }> {
  let last: DklsStepResult | null = null;
  for (;;) {
    for (const message of answer.messages) {
      const next = party.step(message);
      if (next) outbox.push(next);
    }
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

/** A protocol failure on this side (an abort, or a refusal in the middle): nothing is released. */
function translate(error: unknown, what: string): never {
  if (error instanceof ApiError) throw error;
  if (error instanceof ThresholdEcdsaError && (error.code === 'ABORTED' || error.code === 'OT_UNUSABLE')) throw thresholdRefusal(`DKLS_${error.code}`);
  throw internal(`the threshold ${what} with the signer failed; nothing was stored`);
}

export function createThresholdKeyVault({ remote, call, keks, recovery, renewShares, crashAt }: ThresholdVaultDeps): KeyVault {
  async function createThresholdWalletKey(walletId: string): Promise<NewWalletKey> {
    const party = keygenParty(1, dklsDkgContext(walletId));
    try {
      const { result, last } = await exchange(party, (messages) => call<DklsExchange>(DKLS_METHODS.keygenStart, { walletId, messages }), call, walletId);
      const sealed: DklsSealed | null = last?.sealed ?? null;
      const { share, offline } = result;
      if (!sealed || !Buffer.from(sealed.publicKey).equals(Buffer.from(share.publicKey)) || sealed.otSetupId !== share.otSetupId) {
        throw internal('the signer finished the key generation with another public key or OT setup');
      }
      if (sealed.signerShare.role !== 'dkls-signer' || sealed.signerShare.epoch !== 0 || sealed.recoveryShare?.role !== 'recovery-signer' || dklsShareSetupId(sealed.signerShare) !== share.otSetupId) {
        throw internal('the signer answered shares of another role, epoch or OT setup');
      }
      return {
        publicKey: Uint8Array.from(share.publicKey),
        shares: [
          sealDklsShare(keks.current('api'), walletId, 'dkls-api', share, 0),
          sealed.signerShare,
          sealToRecovery(recovery(), walletId, 'recovery-api', share.publicKey, 0, { kind: 'ecdsa-contribution', contribution: offline }),
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

  function openApiShare(wallet: VaultWallet, sealed: EncryptedShare): KeyShare {
    try {
      return openDklsShare(keks, wallet.id, 'dkls-api', sealed, secp256k1KeyOfWallet(wallet));
    } catch {
      throw internal("the API's threshold share of this wallet cannot be opened");
    }
  }

  /** A fresh OT setup for both shares; answers the renewed sealed shares (already stored when `renewShares` is set). */
  async function renewOt(wallet: VaultWallet, apiSealed: EncryptedShare, signerSealed: EncryptedShare): Promise<[EncryptedShare, EncryptedShare]> {
    const share = openApiShare(wallet, apiSealed);
    try {
      const party = otSetupParty(share);
      const { last } = await exchange(party, (messages) => call<DklsExchange>(DKLS_METHODS.otSetupStart, { wallet, share: signerSealed, messages }), call, wallet.id);
      const sealed = last?.sealed;
      if (!sealed || sealed.otSetupId !== share.otSetupId || sealed.signerShare.epoch !== signerSealed.epoch) throw internal('the signer finished the OT setup with another setup or epoch');
      const renewed: [EncryptedShare, EncryptedShare] = [sealDklsShare(keks.current('api'), wallet.id, 'dkls-api', share, apiSealed.epoch), sealed.signerShare];
      await renewShares?.(wallet.id, renewed, 'ot-renewal');
      return renewed;
    } catch (error) {
      translate(error, 'OT setup');
    } finally {
      share.wipe();
    }
  }

  /** The signing capability of one wallet for one operation: each `signDigest` is one threshold signature (3 exchanges). */
  function keyMaterial(request: WalletSignRequest, apiSealed: EncryptedShare, signerSealed: EncryptedShare): KeyMaterial {
    const { wallet } = request;
    const publicKey = secp256k1KeyOfWallet(wallet);
    return {
      address: wallet.address,
      publicKey,
      signEd25519: async () => {
        throw internal('a secp256k1 wallet makes no Ed25519 signature');
      },
      signDigest: async (digest) => {
        const share = openApiShare(wallet, apiSealed);
        try {
          if (share.otStatusValue !== 'ready') throw thresholdRefusal('DKLS_OT_UNUSABLE');
          const party = presignParty(share);
          const started: { sessionId?: string } = {};
          const { result: presignature, last } = await exchange(
            party,
            async (messages) => {
              const answer = await call<DklsExchange>(DKLS_METHODS.signStart, { wallet, share: signerSealed, messages }, request.requestId);
              started.sessionId = answer.sessionId;
              return answer;
            },
            call,
            wallet.id,
          );
          const sessionId = last?.sessionId ?? started.sessionId!;
          crashAt?.('dkls-presigned');
          const pending = presignature.prepareFinalMessage(digest);
          const { message } = await call<DklsFinish>(
            DKLS_METHODS.signFinish,
            { sessionId, wallet, operation: request.operation, input: request.input, requestId: request.requestId, action: request.action, digest, message: pending.message },
            request.requestId,
          );
          crashAt?.('dkls-final');
          const signature = pending.finish(message);
          if (signature.recovery > 1) throw internal('unrepresentable secp256k1 recovery id');
          return { signature: signature.compact, recoveryId: signature.recovery as 0 | 1 };
        } catch (error) {
          // Our side aborted: these correlations must not serve again (a peer could probe them), so the
          // share is stored marked unusable before the refusal leaves; the next signature renews them.
          if (error instanceof ThresholdEcdsaError && error.code === 'ABORTED' && share.otStatusValue === 'unusable') {
            await renewShares?.(wallet.id, [sealDklsShare(keks.current('api'), wallet.id, 'dkls-api', share, apiSealed.epoch)], 'ot-unusable');
          }
          translate(error, 'signature');
        } finally {
          share.wipe();
        }
      },
    };
  }

  async function signThreshold(request: WalletSignRequest): Promise<WalletSignResult> {
    let apiSealed = latestShare(request.shares, 'dkls-api')!;
    let signerSealed = latestShare(request.shares, 'dkls-signer')!;
    const op = signOperation(request.wallet.type, request.operation);
    try {
      const signed = await op.sign(keyMaterial(request, apiSealed, signerSealed), request.input);
      return { ...signed, chainId: signed.chainId ?? null };
    } catch (error) {
      // An aborted session (either side) left the wallet's OT setup unusable, or the signer finished a
      // newer OT setup whose shares were never stored (a renewal or refresh killed before the write):
      // renew it from the stored shares, then sign once more.
      const code = signerCodeOf(error);
      if (code !== 'DKLS_OT_UNUSABLE' && code !== 'DKLS_OT_SETUP_RETIRED') throw error;
      [apiSealed, signerSealed] = await renewOt(request.wallet, apiSealed, signerSealed);
      const signed = await op.sign(keyMaterial(request, apiSealed, signerSealed), request.input);
      return { ...signed, chainId: signed.chainId ?? null };
    }
  }

  return {
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
}
