/**
 * The signer's side of FROST(Ed25519) 2-of-3 (participant 2; the API is participant 1 and the
 * coordinator; participant 3 is the offline recovery key):
 *
 * - DKG in two round trips: `frostDkgStart` runs rounds 1 and 2 and keeps its round secret in memory
 *   (a session with a short TTL); `frostDkgFinish` finishes, seals its share (service KEK, epoch 0)
 *   and its contribution to participant 3 (recovery key) and answers its public key package.
 * - `frostSign`: re-parses the operation's input, derives the message itself by running the same
 *   chain operation with a capturing key, refuses a message that differs from the API's, applies the
 *   signer's limits, refuses a share of a retired epoch, answers its signature share (fresh nonces,
 *   never stored) and logs the signature first.
 *
 * The group key comes from the sealed share: the share opens only for the group key it was sealed
 * for (authenticated associated data), and that key must give the wallet's address.
 */
import {
  encodeVaultValue,
  frostDkgContext,
  frostGroupKey,
  openFrostShare,
  parseSigningInput,
  sealFrostShare,
  sealToRecovery,
  VAULT_METHODS,
  vaultParams,
  type KekProvider,
  type RecoveryPublicKey,
  type VaultWallet,
} from '@wallet/domain';
import { dkgFinish, dkgRound1, dkgRound2, respondToSigning, wipeKeyPackage, wipeRoundSecret, type OfflineContribution, type RoundSecret } from '@wallet/frost-ed25519';
import { logBetweenCrashPoints } from '../crash-at.ts';
import { SignerError } from '../server/errors.ts';
import type { SignerHandler } from '../server/server.ts';
import { admitSignature, assertCurrentEpoch, capturePayload, domainCall, frostCall, parseParams, type EpochStore, type SignatureLimits, type SignatureLog } from './rpc.ts';
import { createSessionTable } from './sessions.ts';

export interface FrostHandlerDeps {
  /** The signer's KEKs (participant 2's share goes under `service`). */
  keks: KekProvider;
  recovery: RecoveryPublicKey;
  epochs: EpochStore;
  log: SignatureLog;
  limits: SignatureLimits;
  capsValue(chain: 'EVM' | 'SOLANA'): boolean;
  sessionTtlMs?: number;
}

export interface CeremonySession {
  secret: RoundSecret;
  offline: OfflineContribution;
}

export const wipeCeremony = (s: CeremonySession) => {
  wipeRoundSecret(s.secret);
  s.offline.share.fill(0);
};

/** The wallet's group key, refused as a 400 when its stored key and address disagree. */
export function groupKeyOf(wallet: VaultWallet): Uint8Array {
  try {
    return frostGroupKey(wallet);
  } catch (error) {
    throw new SignerError('INVALID_PARAMS', (error as Error).message, 400);
  }
}

/** Opens participant 2's sealed share for this wallet's group key; a share that does not open is refused without detail. */
export function openSignerShare(keks: KekProvider, wallet: VaultWallet, share: Parameters<typeof openFrostShare>[3], groupKey: Uint8Array) {
  try {
    return openFrostShare(keks, wallet.id, 'frost-signer', share, groupKey);
  } catch {
    throw new SignerError('SHARE_REFUSED', "the sealed signer share does not open for this wallet's key", 400);
  }
}

export function createFrostHandlers(deps: FrostHandlerDeps): Record<string, SignerHandler> {
  const { keks, recovery, epochs, log } = deps;
  const sessions = createSessionTable<CeremonySession>({ ttlMs: deps.sessionTtlMs ?? 30_000, max: 1000, wipe: wipeCeremony });

  return {
    [VAULT_METHODS.frostDkgStart]: async (params) => {
      const { walletId, round1 } = parseParams(vaultParams.frostDkgStart, params);
      if (round1.identifier !== 1) throw new SignerError('INVALID_PARAMS', 'the coordinator is participant 1', 400);
      const mine = dkgRound1(2, frostDkgContext(walletId));
      let output;
      try {
        output = frostCall(() => dkgRound2(mine, [round1]));
      } catch (error) {
        wipeRoundSecret(mine);
        throw error;
      }
      const toApi = output.packages.find((p) => p.recipient === 1)!;
      const offline = output.offline.find((c) => c.recipient === 3)!;
      const sessionId = sessions.put(walletId, { secret: output.secret, offline });
      return encodeVaultValue({ sessionId, round1: mine.package, round2: toApi });
    },

    [VAULT_METHODS.frostDkgFinish]: async (params) => {
      const { sessionId, walletId, round2 } = parseParams(vaultParams.frostDkgFinish, params);
      const session = sessions.take(sessionId, walletId);
      try {
        if (round2.sender !== 1 || round2.recipient !== 2) throw new SignerError('INVALID_PARAMS', 'expected the round-2 package of participant 1 for participant 2', 400);
        const { keyPackage, publicKeyPackage } = frostCall(() => dkgFinish(session.secret, [round2]));
        try {
          const epoch = epochs.epochOf(walletId);
          const groupKey = publicKeyPackage.groupPublicKey;
          return encodeVaultValue({
            signerShare: sealFrostShare(keks.current('service'), walletId, 'frost-signer', { keyPackage, publicKeyPackage }, epoch),
            recoveryShare: sealToRecovery(recovery, walletId, 'recovery-signer', groupKey, epoch, { kind: 'contribution', contribution: session.offline }),
            publicKeyPackage,
          });
        } finally {
          wipeKeyPackage(keyPackage);
        }
      } finally {
        wipeCeremony(session);
      }
    },

    [VAULT_METHODS.frostSign]: async (params, context) => {
      const request = parseParams(vaultParams.frostSign, params);
      const { wallet } = request;
      const groupKey = groupKeyOf(wallet);
      assertCurrentEpoch(epochs, wallet.id, [request.share.epoch]);
      const input = await domainCall(async () => parseSigningInput(wallet.type, request.operation, request.input));
      const { payload: message, logDigest: digest } = await capturePayload(wallet, request.operation, input, groupKey, 'ed25519');
      if (!Buffer.from(message).equals(Buffer.from(request.message))) {
        throw new SignerError('FROST_MESSAGE_MISMATCH', 'the message to sign is not the one the operation signs for this input', 400);
      }
      await admitSignature(deps, wallet, request.operation, input);
      const { keyPackage, publicKeyPackage } = openSignerShare(keks, wallet, request.share, groupKey);
      try {
        const response = frostCall(() => respondToSigning(keyPackage, publicKeyPackage, { message, coordinator: request.commitments, signer: 2 }));
        await logBetweenCrashPoints(() => log.appendSignature({ walletId: wallet.id, digest, requestId: request.requestId ?? context.requestId, action: request.action }));
        return encodeVaultValue(response);
      } finally {
        wipeKeyPackage(keyPackage);
      }
    },
  };
}
