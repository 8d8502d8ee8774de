/**
 * The signer's half of converting an isolated secp256k1 wallet (its XOR halves) to threshold ECDSA
 * (DKLs23), the counterpart of `convertXorToFrost`: the halves are joined once, in this process only,
 * the key is dealt into the degree-1 sharing (`dealKeyShares`, checked against the wallet's stored
 * key), participant 3's p(3) is sealed to the recovery key at once, participant 1's share is encoded
 * for the API, and the joined key, p(3) and participant 1's share are wiped before this returns.
 * Participant 2's share comes back as a `KeyShare` without OT correlations: the caller runs the OT
 * setup with the API and seals it after. Runs only in the signer (nothing in the API imports it).
 */
import { dealKeyShares, type KeyShare } from '@wallet/threshold-ecdsa';
import { sealToRecovery, type RecoveryPublicKey } from './recovery-seal.ts';
import { withWalletSecret } from './shares.ts';
import type { EncryptedShare, KekProvider } from './types.ts';

export interface DealtWallet {
  /** Participant 1's share (the KeyShare encoding) for the API; the caller wipes it once sent. */
  apiShare: Uint8Array;
  /** Participant 2's share, OT status `absent`; the caller wipes it (`wipe()`). */
  signerShare: KeyShare;
  /** Participant 3's p(3) with Y_3, sealed to the recovery key (`ecdsa-dealt-share`) at `epoch`. */
  recoveryShare: EncryptedShare;
}

/** Throws (a plain Error, naming nothing secret) when the halves do not open or do not join to `publicKey`. */
export function dealXorWallet(keks: KekProvider, recovery: RecoveryPublicKey, walletId: string, halves: EncryptedShare[], publicKey: Uint8Array, epoch: number): DealtWallet {
  const dealt = withWalletSecret(keks, walletId, halves, (secret) => dealKeyShares(secret, publicKey));
  const [api, signer] = dealt.shares;
  try {
    const recoveryShare = sealToRecovery(recovery, walletId, 'recovery-signer', publicKey, epoch, { kind: 'ecdsa-dealt-share', share: dealt.offline });
    return { apiShare: api.encode(), signerShare: signer, recoveryShare };
  } catch (error) {
    signer.wipe();
    throw error;
  } finally {
    api.wipe();
    dealt.offline.share.fill(0);
  }
}
