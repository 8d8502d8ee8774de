/**
 * The API's key vault for FROST(Ed25519) 2-of-3 wallets: the API is participant 1 and the
 * coordinator, the signer process participant 2, the offline recovery key participant 3.
 *
 * - New API-custody Ed25519 wallets come from a DKG in two round trips to the signer (its round
 *   secret lives only in its memory, under a session id). Both sides validate every peer point (the
 *   FROST package does); the API checks that both public key packages agree and seals its share under
 *   its own KEK (`api`) and its contribution to participant 3 to the recovery key.
 * - A signature of such a wallet runs the chain operation here, with a key whose `signEd25519(m)`
 *   opens the API's share, commits, makes one call to the signer (which derives `m` itself from the
 *   operation and input, and answers its share), verifies the signer's share (§5.4) and aggregates.
 *   Nonces are made per call and never stored; a retried request makes new ones.
 * - Everything else (secp256k1 and not yet converted Ed25519 wallets, service keys, migrations)
 *   goes to the signer as before.
 *
 * This module holds only the API's own share, for one operation; it never joins shares.
 */
import { dkgFinish, dkgRound1, dkgRound2, finishSigning, startSigning, wipeKeyPackage, wipeRoundSecret, type Round1Package, type Round2Package } from '@wallet/frost-ed25519';
import { ApiError } from '../errors.ts';
import { signOperation } from '../signing/signers.ts';
import type { KeyMaterial } from '../signing/types.ts';
import { frostDkgContext, openFrostShare, samePublicKeyPackage, sealFrostShare, type OpenedFrostShare } from './frost-share.ts';
import { frostGroupKey } from './group-key.ts';
import { sealToRecovery, type RecoveryPublicKey } from './recovery-seal.ts';
import type { EncryptedShare, KekProvider } from './types.ts';
import { VAULT_METHODS } from './vault-rpc.ts';
import type { FrostRoundStart, FrostSealedShares, FrostSignShare, KeyVault, NewWalletKey, VaultWallet, WalletSignRequest, WalletSignResult } from './vault.ts';

/** One vault RPC to the signer: params encoded, the answer decoded, refusals translated (remote-vault.ts). */
export type VaultCall = <T>(method: string, params: unknown, requestId?: string | null) => Promise<T>;

export interface FrostVaultDeps {
  /** The signer's own vault (over the same transport). */
  remote: KeyVault;
  call: VaultCall;
  /** The API's KEKs: participant 1's share is sealed under `api`. */
  keks: KekProvider;
  /** Read when first needed (creation, refresh). */
  recovery: () => RecoveryPublicKey;
}

/** A wallet whose signatures are FROST: Ed25519 with both online FROST shares stored. */
export function isFrostWallet(wallet: Pick<VaultWallet, 'scheme'>, shares: EncryptedShare[]): boolean {
  return wallet.scheme === 'ED25519' && shares.some((s) => s.role === 'frost-api') && shares.some((s) => s.role === 'frost-signer');
}

/** The newest share of a role (after a refresh only the newest is stored; a stray older one is never used). */
export function latestShare(shares: EncryptedShare[], role: EncryptedShare['role']): EncryptedShare | undefined {
  return shares.filter((s) => s.role === role).sort((a, b) => b.epoch - a.epoch)[0];
}

const internal = (message: string) => new ApiError(500, 'INTERNAL_ERROR', message);

/** Opens the API's share of a wallet (AAD: wallet, role, group key, epoch); a share that does not open is a 500. */
export function openApiShare(keks: KekProvider, wallet: VaultWallet, share: EncryptedShare): OpenedFrostShare {
  let groupKey: Uint8Array;
  try {
    groupKey = frostGroupKey(wallet);
    return openFrostShare(keks, wallet.id, 'frost-api', share, groupKey);
  } catch {
    throw internal("the API's FROST share of this wallet cannot be opened");
  }
}

/**
 * The FROST signing capability of one wallet for one operation: `signEd25519` runs one signing
 * round trip with the signer. `publicKey` comes from the opened API share.
 */
export function frostKeyMaterial(
  opened: OpenedFrostShare,
  wallet: VaultWallet,
  signWithPeer: (message: Uint8Array, commitments: ReturnType<typeof startSigning>['request']['coordinator']) => Promise<FrostSignShare>,
): KeyMaterial {
  return {
    address: wallet.address,
    publicKey: Uint8Array.from(opened.keyPackage.groupPublicKey),
    signDigest: async () => {
      throw internal('an Ed25519 wallet makes no secp256k1 signature');
    },
    signEd25519: async (message) => {
      const { nonces, request } = startSigning(opened.keyPackage, Uint8Array.from(message), 2);
      try {
        const response = await signWithPeer(request.message, request.coordinator);
        // Verifies the signer's share (§5.4) before aggregating, and the signature before releasing it.
        return finishSigning(opened.keyPackage, opened.publicKeyPackage, nonces, request, response);
      } catch (error) {
        nonces.wipe();
        if (error instanceof ApiError) throw error;
        throw internal('the FROST signature could not be completed');
      }
    },
  };
}

export function createFrostKeyVault({ remote, call, keks, recovery }: FrostVaultDeps): KeyVault {
  async function createFrostWalletKey(walletId: string): Promise<NewWalletKey> {
    const mine = dkgRound1(1, frostDkgContext(walletId));
    let secret = mine;
    try {
      const start = await call<FrostRoundStart>(VAULT_METHODS.frostDkgStart, { walletId, round1: mine.package });
      const round2 = dkgRound2(mine, [start.round1 as Round1Package]);
      secret = round2.secret;
      const toSigner = round2.packages.find((p) => p.recipient === 2)!;
      const offline = round2.offline.find((c) => c.recipient === 3)!;
      const { keyPackage, publicKeyPackage } = dkgFinish(round2.secret, [start.round2 as Round2Package]);
      try {
        const theirs = await call<FrostSealedShares>(VAULT_METHODS.frostDkgFinish, { sessionId: start.sessionId, walletId, round2: toSigner });
        if (!samePublicKeyPackage(theirs.publicKeyPackage, publicKeyPackage)) throw internal('the signer finished the key generation with another public key package');
        if (theirs.signerShare.role !== 'frost-signer' || theirs.recoveryShare.role !== 'recovery-signer' || theirs.signerShare.epoch !== 0) {
          throw internal('the signer answered shares of another role or epoch');
        }
        const groupKey = publicKeyPackage.groupPublicKey;
        return {
          publicKey: Uint8Array.from(groupKey),
          shares: [
            sealFrostShare(keks.current('api'), walletId, 'frost-api', { keyPackage, publicKeyPackage }, 0),
            theirs.signerShare,
            sealToRecovery(recovery(), walletId, 'recovery-api', groupKey, 0, { kind: 'contribution', contribution: offline }),
            theirs.recoveryShare,
          ],
          clientUserShare: null,
        };
      } finally {
        wipeKeyPackage(keyPackage);
        offline.share.fill(0);
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw internal('the FROST key generation with the signer failed; nothing was stored');
    } finally {
      wipeRoundSecret(secret);
    }
  }

  async function signFrost(request: WalletSignRequest): Promise<WalletSignResult> {
    const { wallet, operation, input, requestId, action } = request;
    const apiShare = latestShare(request.shares, 'frost-api')!;
    const signerShare = latestShare(request.shares, 'frost-signer')!;
    const op = signOperation(wallet.type, operation);
    const opened = openApiShare(keks, wallet, apiShare);
    try {
      // frostGroupKey checked that this key gives the wallet's address (and remembers that it did).
      if (!Buffer.from(opened.keyPackage.groupPublicKey).equals(Buffer.from(frostGroupKey(wallet)))) throw internal("the API's FROST share is of another key");
      const key = frostKeyMaterial(opened, wallet, (message, commitments) =>
        call<FrostSignShare>(VAULT_METHODS.frostSign, { wallet, share: signerShare, operation, input, requestId, action, message, commitments }, requestId),
      );
      const signed = await op.sign(key, input);
      return { ...signed, chainId: signed.chainId ?? null };
    } finally {
      wipeKeyPackage(opened.keyPackage);
    }
  }

  return {
    ...remote,
    async createWalletKey(request) {
      if (request.scheme === 'ED25519' && !request.clientHeldUserShare) return createFrostWalletKey(request.walletId);
      return remote.createWalletKey(request);
    },
    async sign(request) {
      if (isFrostWallet(request.wallet, request.shares)) return signFrost(request);
      return remote.sign(request);
    },
  };
}
