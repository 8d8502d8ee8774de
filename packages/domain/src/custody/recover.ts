/**
 * Recovery of a lost online share (`npm run custody -- recover --wallet-id W --lost api|signer`), run
 * by the operator's command with the offline recovery private key, never by the API server:
 *
 * 1. Participant 3's share is rebuilt from the wallet's recovery rows (each checked against its
 *    commitments, the sum against Y₃), with the key the operator gives (a key of another id is refused
 *    before anything is opened).
 * 2. The lost share is rebuilt at the stored epoch by interpolation at its identifier (the group secret
 *    is never formed): a lost signer share from the API's share and participant 3's, then sealed by the
 *    signer (`seal`); a lost API share from participant 3's and the signer's, which the signer gives
 *    only against a proof of knowledge of participant 3's share (`contribute`), then sealed under the
 *    API's KEK. A rebuilt threshold ECDSA share has no OT correlations and can only be refreshed.
 * 3. The pair is refreshed as `refresh` does (maintenance.ts, dkls-refresh.ts): new shares at the next
 *    epoch by a sharing of zero (for threshold ECDSA followed by a fresh OT setup), a test signature
 *    checked under the stored key, one transaction that deletes the old pair and inserts the new
 *    shares with participant 3's new contributions, then the signer records the epoch. The lost party's
 *    old shares no longer sign: a signer share of an older epoch is refused, an old API share does not
 *    combine with the refreshed signer share.
 *
 * Idempotent and resumable: before the write the stored shares are as they were (a rerun does it all
 * again); after it the lost party's share opens, and a rerun answers `intact` and repeats the commit.
 */
import type { KeyObject } from 'node:crypto';
import { proveShareKnowledge as proveEd25519, recoverShare, verifyingShareOf, wipeKeyPackage, type KeyPackage } from '@wallet/frost-ed25519';
import { proveShareKnowledge as proveSecp256k1, recoverShareSecret, type KeyShare } from '@wallet/threshold-ecdsa';
import { ApiError, conflict, notFound } from '../errors.ts';
import { refreshThresholdEcdsa } from './dkls-refresh.ts';
import { latestShare, openApiShare } from './frost-coordinator.ts';
import { decodeFrostShare, encodeFrostShare, samePublicKeyPackage, sealFrostShare, type OpenedFrostShare } from './frost-share.ts';
import { frostGroupKey } from './group-key.ts';
import { rebuildParticipant3 } from './recovery-key.ts';
import { openDklsShare, sealDklsShare, secp256k1KeyOfWallet } from './dkls-share.ts';
import { helpersOf, refreshFrost, type KeyMaintenanceDeps, type KeyMaintenanceStore, type StoredKeyWallet } from './maintenance.ts';
import { rebuildDklsParticipant3, recoveryKeyIdOf } from './recover-key.ts';
import { placeholderKeyShare, RECOVER_METHODS, recoverProofContext, type RecoverContribution, type RecoverInspection } from './recover-rpc.ts';
import type { EncryptedShare } from './types.ts';
import { wipe } from './types.ts';
import { VAULT_METHODS } from './vault-rpc.ts';
import type { VaultWallet } from './vault.ts';

export type LostParty = 'api' | 'signer';

export interface RecoverDeps extends KeyMaintenanceDeps {
  recoveryPrivateKey: KeyObject;
}

export interface WalletRecovery {
  command: 'recover';
  walletId: string;
  type: string;
  address: string;
  lost: LostParty;
  /** `recovered` by this run; `intact` when the lost party's stored share opens (nothing rebuilt; a rerun after a recovery, whose epoch commit is repeated). */
  outcome: 'recovered' | 'intact';
  /** The epoch of the wallet's shares afterwards. */
  epoch: number;
}

const failed = (message: string) => new ApiError(500, 'RECOVERY_FAILED', `the recovery did not complete; nothing was replaced (${message})`);
const isRecoveryRow = (s: EncryptedShare) => s.role === 'recovery-api' || s.role === 'recovery-signer';
const vaultWalletOf = ({ wallet }: StoredKeyWallet): VaultWallet => ({ id: wallet.id, type: wallet.type, scheme: wallet.scheme, address: wallet.address, publicKey: wallet.publicKey });

/** The store seen by the refresh: the lost party's row may be missing (it is removed only when there), and the write is reported. */
function recordingStore(store: KeyMaintenanceStore, stored: EncryptedShare[], written: { done: boolean }): KeyMaintenanceStore {
  const present = new Set(stored.map((s) => `${s.role}@${s.epoch}`));
  return {
    ...store,
    list: store.list.bind(store),
    get: store.get.bind(store),
    appendAudit: store.appendAudit.bind(store),
    replaceShares: async (walletId, remove, add, audit, mode) => {
      written.done = await store.replaceShares(walletId, remove.filter((s) => present.has(`${s.role}@${s.epoch}`)), add, audit, mode);
      return written.done;
    },
  };
}

/** Rebuilds the lost online share of one FROST or threshold ECDSA wallet and refreshes the pair to the next epoch (see the module comment). */
export async function recoverWallet(deps: RecoverDeps, walletId: string, lost: LostParty): Promise<WalletRecovery> {
  const entry = await deps.store.get(walletId);
  if (!entry) throw notFound('Wallet');
  const { wallet, shares } = entry;
  const frost = wallet.scheme === 'ED25519';
  const roles = frost ? ({ api: 'frost-api', signer: 'frost-signer' } as const) : ({ api: 'dkls-api', signer: 'dkls-signer' } as const);
  const apiSealed = latestShare(shares, roles.api);
  const signerSealed = latestShare(shares, roles.signer);
  const surviving = lost === 'api' ? signerSealed : apiSealed;
  const recoveryRows = shares.filter(isRecoveryRow);
  if (!surviving || recoveryRows.length === 0) {
    throw conflict(`This wallet has no ${frost ? 'FROST' : 'threshold ECDSA'} share of the ${lost === 'api' ? 'signer' : 'API'} with recovery rows to rebuild from; nothing was changed`, { walletId });
  }
  const keyId = recoveryKeyIdOf(deps.recoveryPrivateKey);
  const sealedTo = [...new Set(recoveryRows.map((s) => s.kekId))];
  if (sealedTo.some((id) => id !== keyId)) {
    throw new ApiError(400, 'RECOVERY_KEY_MISMATCH', `the recovery private key given (${keyId}) is not the one this wallet's recovery shares are sealed to (${sealedTo.join(', ')}); nothing was changed`, { walletId });
  }
  const vw = vaultWalletOf(entry);
  const result = (outcome: WalletRecovery['outcome'], epoch: number): WalletRecovery => ({ command: 'recover', walletId, type: wallet.type, address: wallet.address, lost, outcome, epoch });

  const inspection = signerSealed ? await deps.call<RecoverInspection>(RECOVER_METHODS.inspect, { wallet: vw, share: signerSealed }) : null;
  if (await lostShareOpens(deps, vw, lost, apiSealed, inspection)) {
    await deps.call(VAULT_METHODS.commitEpoch, { wallet: vw, share: signerSealed });
    return result('intact', signerSealed!.epoch);
  }
  if (lost === 'api' && !inspection?.opens) throw conflict("The signer's share of this wallet does not open either: recovery needs one surviving online share; nothing was changed", { walletId });

  const epoch = surviving.epoch;
  let rebuilt: EncryptedShare;
  try {
    rebuilt = frost ? await rebuildFrost(deps, entry, vw, lost, surviving, inspection) : await rebuildDkls(deps, entry, vw, lost, surviving, inspection);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw failed((error as Error).message);
  }
  const pair = lost === 'api' ? [rebuilt, surviving] : [surviving, rebuilt];
  const written = { done: false };
  const refreshDeps: KeyMaintenanceDeps = { ...deps, store: recordingStore(deps.store, shares, written) };
  const stored: StoredKeyWallet = { wallet, shares: [...pair, ...recoveryRows] };
  try {
    if (frost) await refreshFrost(refreshDeps, stored, 'recover');
    else await refreshThresholdEcdsa(refreshDeps, stored, helpersOf(refreshDeps, wallet, 'recover'));
  } catch (error) {
    if (error instanceof ApiError && error.status !== 500) throw error;
    throw failed(`the refresh of the rebuilt pair failed: ${(error as Error).message}; run the command again`);
  }
  if (!written.done) throw conflict("Another run replaced this wallet's shares meanwhile; run the command again", { walletId });
  return result('recovered', epoch + 1);
}

/** Whether the share said to be lost still opens for its party (then there is nothing to rebuild). */
async function lostShareOpens(deps: RecoverDeps, vw: VaultWallet, lost: LostParty, apiSealed: EncryptedShare | undefined, inspection: RecoverInspection | null): Promise<boolean> {
  if (lost === 'signer') return inspection?.opens === true;
  if (!apiSealed || !inspection?.opens) return false;
  try {
    if (vw.scheme === 'ED25519') wipeKeyPackage(openApiShare(deps.keks, vw, apiSealed).keyPackage);
    else openDklsShare(deps.keks, vw.id, 'dkls-api', apiSealed, secp256k1KeyOfWallet(vw)).wipe();
    return true;
  } catch {
    return false;
  }
}

/** Participant 3's share, a failure to open or check it named as the recovery rows'. */
function participant3<T>(rebuild: () => T): T {
  try {
    return rebuild();
  } catch (error) {
    throw new ApiError(400, 'RECOVERY_SHARES_INVALID', `participant 3's share cannot be rebuilt from this wallet's recovery rows with this key (${(error as Error).message}); nothing was changed`);
  }
}

async function rebuildFrost(deps: RecoverDeps, { wallet, shares }: StoredKeyWallet, vw: VaultWallet, lost: LostParty, surviving: EncryptedShare, inspection: RecoverInspection | null): Promise<EncryptedShare> {
  const groupKey = frostGroupKey(vw);
  const held: KeyPackage[] = [];
  try {
    if (lost === 'signer') {
      const api = openApiShare(deps.keks, vw, surviving);
      held.push(api.keyPackage);
      const third = participant3(() => rebuildParticipant3(deps.recoveryPrivateKey, wallet.id, shares, api.publicKeyPackage));
      held.push(third);
      const signer = recoverShare(2, [api.keyPackage, third], api.publicKeyPackage);
      held.push(signer);
      const plain = encodeFrostShare({ keyPackage: signer, publicKeyPackage: api.publicKeyPackage });
      try {
        const { signerShare } = await deps.call<{ signerShare: EncryptedShare }>(RECOVER_METHODS.seal, { wallet: vw, epoch: surviving.epoch, share: plain });
        if (signerShare.role !== 'frost-signer' || signerShare.epoch !== surviving.epoch) throw new Error('the signer sealed a share of another role or epoch');
        return signerShare;
      } finally {
        wipe(plain);
      }
    }
    const publicKeyPackage = inspection!.publicKeyPackage!;
    if (!Buffer.from(publicKeyPackage.groupPublicKey).equals(Buffer.from(groupKey))) throw new Error("the signer's share is of another group key");
    const third = participant3(() => rebuildParticipant3(deps.recoveryPrivateKey, wallet.id, shares, publicKeyPackage));
    held.push(third);
    const challenge = inspection!.challenge!;
    const proof = proveEd25519(third.signingShare, verifyingShareOf(publicKeyPackage, 3), recoverProofContext(wallet.id, 'ED25519', surviving.epoch, 1, challenge));
    const answer = await deps.call<RecoverContribution>(RECOVER_METHODS.contribute, { wallet: vw, share: surviving, target: 1, challenge, proof });
    let signer: OpenedFrostShare;
    try {
      signer = decodeFrostShare(answer.share);
    } finally {
      wipe(answer.share);
    }
    held.push(signer.keyPackage);
    if (signer.keyPackage.identifier !== 2 || !samePublicKeyPackage(signer.publicKeyPackage, publicKeyPackage)) throw new Error("the signer answered a share of another participant or key");
    const api = recoverShare(1, [signer.keyPackage, third], publicKeyPackage);
    held.push(api);
    return sealFrostShare(deps.keks.current('api'), wallet.id, 'frost-api', { keyPackage: api, publicKeyPackage }, surviving.epoch);
  } finally {
    for (const k of held) wipeKeyPackage(k);
  }
}

async function rebuildDkls(deps: RecoverDeps, { wallet, shares }: StoredKeyWallet, vw: VaultWallet, lost: LostParty, surviving: EncryptedShare, inspection: RecoverInspection | null): Promise<EncryptedShare> {
  const publicKey = secp256k1KeyOfWallet(vw);
  const secrets: Uint8Array[] = [];
  let held: KeyShare | undefined;
  try {
    if (lost === 'signer') {
      held = openDklsShare(deps.keks, wallet.id, 'dkls-api', surviving, publicKey);
      const encoded = held.encode();
      const p1 = Uint8Array.from(encoded.subarray(3, 35));
      encoded.fill(0);
      secrets.push(p1);
      const ys = held.verifyingShares as [Uint8Array, Uint8Array, Uint8Array];
      const p3 = participant3(() => rebuildDklsParticipant3(deps.recoveryPrivateKey, wallet.id, shares, publicKey, ys[2]));
      secrets.push(p3);
      const p2 = recoverShareSecret(2, [{ id: 1, share: p1 }, { id: 3, share: p3 }], ys);
      secrets.push(p2);
      const { signerShare } = await deps.call<{ signerShare: EncryptedShare }>(RECOVER_METHODS.seal, { wallet: vw, epoch: surviving.epoch, share: p2, verifyingShares: ys });
      if (signerShare.role !== 'dkls-signer' || signerShare.epoch !== surviving.epoch) throw new Error('the signer sealed a share of another role or epoch');
      return signerShare;
    }
    const ys = inspection!.verifyingShares!;
    const p3 = participant3(() => rebuildDklsParticipant3(deps.recoveryPrivateKey, wallet.id, shares, publicKey, ys[2]));
    secrets.push(p3);
    const challenge = inspection!.challenge!;
    const proof = proveSecp256k1(p3, ys[2], recoverProofContext(wallet.id, 'DKLS', surviving.epoch, 1, challenge));
    const answer = await deps.call<RecoverContribution>(RECOVER_METHODS.contribute, { wallet: vw, share: surviving, target: 1, challenge, proof });
    secrets.push(answer.share);
    if (!answer.verifyingShares || answer.verifyingShares.some((y, i) => !Buffer.from(y).equals(Buffer.from(ys[i]!)))) throw new Error('the signer answered a share of another sharing');
    const p1 = recoverShareSecret(1, [{ id: 2, share: answer.share }, { id: 3, share: p3 }], ys);
    secrets.push(p1);
    held = placeholderKeyShare(1, p1, ys, publicKey);
    return sealDklsShare(deps.keks.current('api'), wallet.id, 'dkls-api', held, surviving.epoch);
  } finally {
    held?.wipe();
    wipe(...secrets);
  }
}
