/**
 * The signer's key-maintenance methods, which the operator's `npm run custody` drives through the API:
 *
 * - `frostImport`: conversion of an XOR-split Ed25519 wallet (the local vault joins the halves once,
 *   splits the scalar 2-of-3 and answers participant 1's share to the API over mTLS).
 * - `frostRefreshStart` / `frostRefreshFinish`: zero-sharing refresh, participant 2's half, its
 *   participant-3 delta sealed to the recovery key; new shares sealed at the next epoch.
 * - `xorRepad`: secp256k1 refresh, a new pad for the same key at the next epoch.
 * - `commitEpoch` (for a FROST, XOR or DKLs23 participant-2 share): once the API has stored the new shares, the signer records their epoch (durably)
 *   and from then on refuses every sealed share of an older epoch. Recording before the shares are
 *   stored would leave a crashed run with no share the signer accepts; recording after leaves the
 *   old shares usable until the commit, which the next run repeats (it is idempotent).
 * - `recover.inspect` / `recover.contribute` / `recover.seal`: the operator's recovery of a lost online
 *   share (recover-rpc.ts, recover.ts): whether this side's share opens (with its public verifying
 *   shares); this side's share, only against a proof of knowledge of participant 3's share under the Y₃
 *   of that share; a rebuilt participant-2 share checked against the wallet's key and sealed at the
 *   current epoch (the refresh that follows moves it to the next).
 */
import {
  encodeVaultValue,
  frostRefreshContext,
  openDklsShare,
  sealDklsShare,
  sealFrostShare,
  sealToRecovery,
  secp256k1KeyOfWallet,
  VAULT_METHODS,
  vaultParams,
  type EncryptedShare,
  type KekProvider,
  type OpenedFrostShare,
  type RecoveryPublicKey,
  type VaultWallet,
} from '@wallet/domain';
import { convertXorToFrost, repadXorShares } from '@wallet/domain/custody/local-vault.ts';
import { decryptShare } from '@wallet/domain/custody/shares.ts';
import { refreshFinish, refreshRound1, refreshRound2, wipeKeyPackage, wipeRoundSecret, type KeyPackage, type PublicKeyPackage } from '@wallet/frost-ed25519';
import { decodeFrostShare, encodeFrostShare, openFrostShare } from '@wallet/domain/custody/frost-share.ts';
import { placeholderKeyShare, RECOVER_METHODS, recoverParams, recoverProofContext } from '@wallet/domain/custody/recover-rpc.ts';
import { isShareOfPackage, verifyShareKnowledge } from '@wallet/frost-ed25519';
import { verifyShareKnowledge as verifySecp256k1Knowledge, type KeyShare } from '@wallet/threshold-ecdsa';
import { SignerError } from '../server/errors.ts';
import type { SignerHandler } from '../server/server.ts';
import { groupKeyOf, openSignerShare, wipeCeremony, type CeremonySession } from './frost-handlers.ts';
import { assertCurrentEpoch, frostCall, parseParams, type EpochStore } from './rpc.ts';
import { createSessionTable } from './sessions.ts';

export interface CustodyHandlerDeps {
  keks: KekProvider;
  recovery: RecoveryPublicKey;
  epochs: EpochStore;
  sessionTtlMs?: number;
  /** Where a share handed over for a recovery is logged (the operator's to see; never the share). */
  logger?: { warn(obj: object, msg?: string): void };
}

interface RefreshSession extends CeremonySession {
  keyPackage: KeyPackage;
  publicKeyPackage: PublicKeyPackage;
  epoch: number;
}

const refused = (message: string) => () => {
  throw new SignerError('INVALID_PARAMS', message, 400);
};

export function createCustodyHandlers({ keks, recovery, epochs, sessionTtlMs, logger }: CustodyHandlerDeps): Record<string, SignerHandler> {
  const refreshes = createSessionTable<RefreshSession>({
    ttlMs: sessionTtlMs ?? 30_000,
    max: 1000,
    wipe: (s) => {
      wipeCeremony(s);
      wipeKeyPackage(s.keyPackage);
    },
  });

  return {
    ...createRecoverHandlers(keks, epochs, sessionTtlMs, logger),
    [VAULT_METHODS.frostImport]: async (params) => {
      const { wallet, shares } = parseParams(vaultParams.frostImport, params);
      const groupKey = groupKeyOf(wallet);
      if (shares.some((s) => s.role !== 'user' && s.role !== 'service')) refused('conversion takes the user and service halves')();
      assertCurrentEpoch(epochs, wallet.id, shares.map((s) => s.epoch));
      // The new shares retire the halves: sealed at the next epoch, which commitEpoch records once they are stored.
      const epoch = Math.max(epochs.epochOf(wallet.id), ...shares.map((s) => s.epoch)) + 1;
      try {
        return encodeVaultValue(convertXorToFrost(keks, recovery, wallet.id, shares, groupKey, epoch));
      } catch {
        throw new SignerError('SHARE_REFUSED', "the wallet's halves do not open or do not join to its key", 400);
      }
    },

    [VAULT_METHODS.frostRefreshStart]: async (params) => {
      const { wallet, share, round1 } = parseParams(vaultParams.frostRefreshStart, params);
      if (round1.identifier !== 1) refused('the coordinator is participant 1')();
      const groupKey = groupKeyOf(wallet);
      assertCurrentEpoch(epochs, wallet.id, [share.epoch]);
      const { keyPackage, publicKeyPackage } = openSignerShare(keks, wallet, share, groupKey);
      const epoch = share.epoch + 1;
      const mine = refreshRound1(keyPackage, frostRefreshContext(wallet.id, epoch));
      let output;
      try {
        output = frostCall(() => refreshRound2(mine, [round1]));
      } catch (error) {
        wipeRoundSecret(mine);
        wipeKeyPackage(keyPackage);
        throw error;
      }
      const offline = output.offline.find((c) => c.recipient === 3)!;
      const sessionId = refreshes.put(wallet.id, { secret: output.secret, offline, keyPackage, publicKeyPackage, epoch });
      return encodeVaultValue({ sessionId, round1: mine.package, round2: output.packages.find((p) => p.recipient === 1)! });
    },

    [VAULT_METHODS.frostRefreshFinish]: async (params) => {
      const { sessionId, walletId, round2 } = parseParams(vaultParams.frostRefreshFinish, params);
      const session = refreshes.take(sessionId, walletId);
      try {
        if (round2.sender !== 1 || round2.recipient !== 2) refused('expected the round-2 package of participant 1 for participant 2')();
        const next = frostCall(() => refreshFinish(session.secret, [round2], session.keyPackage, session.publicKeyPackage));
        try {
          const groupKey = next.publicKeyPackage.groupPublicKey;
          return encodeVaultValue({
            signerShare: sealFrostShare(keks.current('service'), walletId, 'frost-signer', next, session.epoch),
            recoveryShare: sealToRecovery(recovery, walletId, 'recovery-signer', groupKey, session.epoch, { kind: 'contribution', contribution: session.offline }),
            publicKeyPackage: next.publicKeyPackage,
          });
        } finally {
          wipeKeyPackage(next.keyPackage);
        }
      } finally {
        wipeCeremony(session);
        wipeKeyPackage(session.keyPackage);
      }
    },

    [VAULT_METHODS.xorRepad]: async (params) => {
      const { wallet, shares } = parseParams(vaultParams.xorRepad, params);
      if (wallet.scheme !== 'DKLS') refused('Ed25519 wallets are refreshed with FROST')();
      assertCurrentEpoch(epochs, wallet.id, shares.map((s) => s.epoch));
      const epoch = Math.max(epochs.epochOf(wallet.id), ...shares.map((s) => s.epoch)) + 1;
      try {
        return encodeVaultValue({ shares: repadXorShares(keks, wallet.id, shares, epoch) });
      } catch {
        throw new SignerError('SHARE_REFUSED', "the wallet's halves do not open", 400);
      }
    },

    [VAULT_METHODS.commitEpoch]: async (params) => {
      const { wallet, share } = parseParams(vaultParams.commitEpoch, params);
      // The caller proves the shares of that epoch exist: the signer's own sealed share of it opens.
      if (share.role === 'frost-signer') {
        const opened = openSignerShare(keks, wallet, share, groupKeyOf(wallet));
        wipeKeyPackage(opened.keyPackage);
      } else if (share.role === 'dkls-signer') {
        try {
          openDklsShare(keks, wallet.id, 'dkls-signer', share, secp256k1KeyOfWallet(wallet)).wipe();
        } catch {
          throw new SignerError('SHARE_REFUSED', "the sealed threshold signer share does not open for this wallet's key", 400);
        }
      } else if (share.role === 'service') {
        try {
          decryptShare(keks, wallet.id, share).fill(0);
        } catch {
          throw new SignerError('SHARE_REFUSED', "the sealed service share does not open for this wallet", 400);
        }
      } else {
        refused('commitEpoch takes the signer-side share of the new epoch')();
      }
      const current = epochs.epochOf(wallet.id);
      if (share.epoch > current) await epochs.advanceEpoch(wallet.id, share.epoch);
      return { epoch: Math.max(current, share.epoch) };
    },
  };
}

/** The signer's share of a FROST or DKLs23 wallet, opened; null when it does not open. */
function openOwnShare(keks: KekProvider, wallet: VaultWallet, share: EncryptedShare): { frost: OpenedFrostShare } | { dkls: KeyShare } | null {
  try {
    if (wallet.scheme === 'ED25519') return { frost: openFrostShare(keks, wallet.id, 'frost-signer', share, groupKeyOf(wallet)) };
    return { dkls: openDklsShare(keks, wallet.id, 'dkls-signer', share, secp256k1KeyOfWallet(wallet)) };
  } catch (error) {
    if (error instanceof SignerError) throw error;
    return null;
  }
}

function createRecoverHandlers(keks: KekProvider, epochs: EpochStore, sessionTtlMs: number | undefined, logger: CustodyHandlerDeps['logger']): Record<string, SignerHandler> {
  // Single-use challenges for `contribute`: a proof of participant 3's share is bound to one, so a proof seen once cannot be replayed.
  const challenges = createSessionTable<true>({ ttlMs: sessionTtlMs ?? 60_000, max: 1000, wipe: () => undefined });
  return {
    [RECOVER_METHODS.inspect]: async (params) => {
      const { wallet, share } = parseParams(recoverParams.inspect, params);
      const opened = openOwnShare(keks, wallet, share);
      const epoch = epochs.epochOf(wallet.id);
      if (!opened) return encodeVaultValue({ opens: false, epoch });
      const challenge = challenges.put(wallet.id, true);
      if ('frost' in opened) {
        wipeKeyPackage(opened.frost.keyPackage);
        return encodeVaultValue({ opens: true, epoch, challenge, publicKeyPackage: opened.frost.publicKeyPackage });
      }
      const verifyingShares = [...opened.dkls.verifyingShares];
      opened.dkls.wipe();
      return encodeVaultValue({ opens: true, epoch, challenge, verifyingShares });
    },

    [RECOVER_METHODS.contribute]: async (params, context) => {
      const { wallet, share, proof, challenge } = parseParams(recoverParams.contribute, params);
      const handedOver = (scheme: 'ED25519' | 'DKLS') =>
        logger?.warn({ walletId: wallet.id, scheme, epoch: share.epoch, requestId: context.requestId, client: context.client }, "signer share handed over for a recovery (the caller proved participant 3's share)");
      challenges.take(challenge, wallet.id);
      assertCurrentEpoch(epochs, wallet.id, [share.epoch]);
      const opened = openOwnShare(keks, wallet, share);
      if (!opened) throw new SignerError('SHARE_REFUSED', "the sealed signer share does not open for this wallet's key", 400);
      const refusedProof = () => new SignerError('RECOVERY_PROOF_REFUSED', "the proof of participant 3's share does not verify; the signer contributes to a recovery only for the holder of the recovery key", 403);
      if ('frost' in opened) {
        const { keyPackage, publicKeyPackage } = opened.frost;
        let encoded: Uint8Array | undefined;
        try {
          const context = recoverProofContext(wallet.id, 'ED25519', share.epoch, 1, challenge);
          if (proof.R.length !== 32 || !verifyShareKnowledge(publicKeyPackage.verifyingShares[2]!, proof, context)) throw refusedProof();
          handedOver('ED25519');
          encoded = encodeFrostShare(opened.frost);
          // The answer holds its own copy of the bytes (encodeVaultValue copies): this one is wiped.
          return encodeVaultValue({ share: encoded });
        } finally {
          encoded?.fill(0);
          wipeKeyPackage(keyPackage);
        }
      }
      const dkls = opened.dkls;
      const encoded = dkls.encode();
      try {
        const context = recoverProofContext(wallet.id, 'DKLS', share.epoch, 1, challenge);
        if (proof.R.length !== 33 || !verifySecp256k1Knowledge(dkls.verifyingShares[2], proof, context)) throw refusedProof();
        handedOver('DKLS');
        return encodeVaultValue({ share: encoded.subarray(3, 35), verifyingShares: [...dkls.verifyingShares] });
      } finally {
        encoded.fill(0);
        dkls.wipe();
      }
    },

    [RECOVER_METHODS.seal]: async (params) => {
      const { wallet, epoch, share, verifyingShares } = parseParams(recoverParams.seal, params);
      assertCurrentEpoch(epochs, wallet.id, [epoch]);
      const notAShare = () => new SignerError('SHARE_REFUSED', "the rebuilt share is not participant 2's share of this wallet's key", 400);
      try {
        if (wallet.scheme === 'ED25519') {
          if (share.length === 32) throw notAShare();
          let opened: OpenedFrostShare;
          try {
            opened = decodeFrostShare(share);
          } catch {
            throw notAShare();
          }
          try {
            const groupKey = groupKeyOf(wallet);
            if (opened.keyPackage.identifier !== 2 || !Buffer.from(opened.keyPackage.groupPublicKey).equals(Buffer.from(groupKey)) || !isShareOfPackage(opened.keyPackage, opened.publicKeyPackage)) throw notAShare();
            return encodeVaultValue({ signerShare: sealFrostShare(keks.current('service'), wallet.id, 'frost-signer', opened, epoch) });
          } finally {
            wipeKeyPackage(opened.keyPackage);
          }
        }
        if (share.length !== 32 || !verifyingShares) throw notAShare();
        let rebuilt: KeyShare;
        try {
          rebuilt = placeholderKeyShare(2, share, verifyingShares, secp256k1KeyOfWallet(wallet));
        } catch {
          throw notAShare();
        }
        try {
          return encodeVaultValue({ signerShare: sealDklsShare(keks.current('service'), wallet.id, 'dkls-signer', rebuilt, epoch) });
        } finally {
          rebuilt.wipe();
        }
      } finally {
        share.fill(0);
      }
    },
  };
}
