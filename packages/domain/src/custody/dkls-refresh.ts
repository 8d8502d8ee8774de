/**
 * Share refresh of a threshold ECDSA (DKLs23) wallet, the API side (`npm run custody -- refresh`):
 * from both shares of the current epoch, the API (participant 1) and the signer run `refreshParty` in
 * 5 exchanges: a refresh by a random sharing of zero, which keeps the public key, then an OT setup for
 * the new shares, so no correlation of the old shares survives. Each side seals its contribution to
 * participant 3 (3·r_i) to the recovery key. The API checks that both sides agree on the key and the
 * new OT setup, signs a test payload 2-of-2 through the new pair, checked under the stored key, and
 * only then replaces the old pair in one transaction; the signer then records the new epoch
 * (`commitEpoch`). The signer already refuses the old shares from the end of the exchange on (their OT
 * setup is no longer the wallet's current one); a run killed before the write leaves the old shares,
 * which the next signature renews with a fresh OT setup, and the rerun refreshes again. The rounds run
 * in this process's presigning thread (dkls-party-host.ts), the share sealed from the bytes it answers.
 */
import { ThresholdEcdsaError } from '@wallet/threshold-ecdsa';
import type { AuditEntry } from '../ports.ts';
import { continueExchange, createThresholdKeyVault, plainOf } from './dkls-coordinator.ts';
import { threadRefreshParty } from './dkls-party-host.ts';
import { sharedPresignThread } from './dkls-presign-host.ts';
import { DKLS_METHODS, type DklsExchange } from './dkls-rpc.ts';
import { dklsRefreshContext, dklsShareSetupId, openDklsSharePlain, sealDklsShareBytes, secp256k1KeyOfWallet } from './dkls-share.ts';
import { latestShare } from './frost-coordinator.ts';
import type { KeyMaintenanceDeps, StoredKeyWallet } from './maintenance.ts';
import { sealToRecovery } from './recovery-seal.ts';
import { checkThresholdEcdsaShares, type ShareCheckRecorder } from './share-check.ts';
import { VAULT_METHODS } from './vault-rpc.ts';
import type { KeyVault, VaultWallet } from './vault.ts';

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
/** The threshold vault only signs here (its other methods are never reached). */
const noRemote = {} as KeyVault;

export async function refreshThresholdEcdsa(
  deps: KeyMaintenanceDeps,
  { wallet, shares }: StoredKeyWallet,
  helpers: { vaultWallet: VaultWallet; recorder: ShareCheckRecorder; audit: (details: Record<string, unknown>) => AuditEntry },
): Promise<void> {
  const vw = helpers.vaultWallet;
  const apiSealed = latestShare(shares, 'dkls-api')!;
  const signerSealed = latestShare(shares, 'dkls-signer')!;
  if (apiSealed.epoch !== signerSealed.epoch) throw new Error('the stored threshold ECDSA shares are of different epochs');
  const epoch = apiSealed.epoch + 1;
  const publicKey = secp256k1KeyOfWallet(vw);
  let opened;
  try {
    opened = openDklsSharePlain(deps.keks, wallet.id, 'dkls-api', apiSealed, publicKey);
  } catch {
    throw new Error("the API's threshold share of this wallet cannot be opened");
  }
  // The rounds run in the presigning thread, which decodes and checks the share; the result comes back as bytes.
  const party = threadRefreshParty(sharedPresignThread(), opened, dklsRefreshContext(wallet.id, epoch));
  try {
    const first = await party.first().catch((error: unknown) => {
      if (error instanceof ThresholdEcdsaError && error.code === 'INVALID_INPUT') throw new Error("the API's threshold share of this wallet cannot be opened");
      throw error;
    });
    const started = await deps.call<DklsExchange>(DKLS_METHODS.refreshStart, { wallet: vw, share: signerSealed, messages: first });
    const ran = await continueExchange(party, started, deps.call, wallet.id);
    const result = ran.result;
    const sealed = ran.last?.sealed;
    if (!sealed || !sameBytes(sealed.publicKey, publicKey) || !sameBytes(result.publicKey, publicKey) || sealed.otSetupId !== result.otSetupId) {
      throw new Error('the signer finished the refresh with another key or OT setup');
    }
    const { signerShare, recoveryShare } = sealed;
    if (signerShare.role !== 'dkls-signer' || signerShare.epoch !== epoch || dklsShareSetupId(signerShare) !== result.otSetupId || recoveryShare?.role !== 'recovery-signer' || recoveryShare.epoch !== epoch) {
      throw new Error('the signer answered shares of another role, epoch or OT setup');
    }
    const apiShare = sealDklsShareBytes(deps.keks.current('api'), wallet.id, 'dkls-api', plainOf(result), epoch);
    const recoveryApi = sealToRecovery(deps.recovery(), wallet.id, 'recovery-api', publicKey, epoch, { kind: 'ecdsa-refresh', contribution: result.offline });
    // The new pair must sign for the wallet's key before it replaces the old one.
    const vault = createThresholdKeyVault({ remote: noRemote, call: deps.call, keks: deps.keks, recovery: deps.recovery, presign: { pool: false } });
    await checkThresholdEcdsaShares(vault, vw, [apiShare, signerShare], helpers.recorder);
    await deps.beforeWrite?.(wallet.id);
    const remove = [apiSealed, signerSealed].map((s) => ({ role: s.role, epoch: s.epoch }));
    if (!(await deps.store.replaceShares(wallet.id, remove, [apiShare, signerShare, recoveryApi, recoveryShare], helpers.audit({ epoch, otSetupId: result.otSetupId })))) return;
    await deps.afterWrite?.(wallet.id);
    await deps.call(VAULT_METHODS.commitEpoch, { wallet: vw, share: signerShare });
  } finally {
    // Drops the thread's entry, wipes the new share's bytes and the contribution's secret.
    party.abandon();
  }
}
