/**
 * Conversion of an isolated secp256k1 wallet (XOR halves, the key joined in the signer for each
 * signature) to threshold ECDSA (DKLs23) 2-of-3, keeping its key and so its address; the API side,
 * as for the Ed25519 → FROST conversion (maintenance.ts):
 *
 * 1. `importStart`: the signer joins the halves once, deals the key (trusted dealer) at the next
 *    epoch, seals participant 3's p(3) to the recovery key and answers participant 1's share in the
 *    clear over mTLS with its first OT setup message;
 * 2. an OT setup between the two new shares (3 more exchanges), its rounds in the API's presigning
 *    thread, which first checks the dealt share (strict decoding, participant 1, the wallet's stored
 *    key, no OT correlations yet);
 *    the signer seals participant 2's share and records the setup as the wallet's current one;
 * 3. the API seals its share under its own KEK and signs a test payload 2-of-2 through the new pair,
 *    checked under the stored key; only then, in one transaction, the halves are replaced by the new
 *    shares and the wallet's custody mode becomes `threshold` (with the audit row);
 * 4. `commitEpoch`: the signer records the new epoch and refuses the halves from then on.
 *
 * Resumable: a run killed before step 3's write leaves the wallet isolated as it was (the dealt
 * shares only ever existed in memory, or sealed in an answer nobody stored); the rerun deals afresh.
 * A run killed after the write is finished by the next one, which finds the wallet threshold and
 * repeats the (idempotent) commit. Nothing here joins shares: the API holds only its own.
 */
import { ThresholdEcdsaError } from '@wallet/threshold-ecdsa';
import type { AuditEntry } from '../ports.ts';
import { continueExchange, createThresholdKeyVault, isThresholdEcdsaWallet, plainOf } from './dkls-coordinator.ts';
import { threadOtSetupParty } from './dkls-party-host.ts';
import { sharedPresignThread } from './dkls-presign-host.ts';
import { DKLS_METHODS, type DklsImportStart } from './dkls-rpc.ts';
import { dklsShareSetupId, sealDklsShareBytes, secp256k1KeyOfWallet } from './dkls-share.ts';
import { latestShare } from './frost-coordinator.ts';
import type { KeyMaintenanceDeps, StoredKeyWallet } from './maintenance.ts';
import { checkThresholdEcdsaShares, type ShareCheckRecorder } from './share-check.ts';
import { VAULT_METHODS } from './vault-rpc.ts';
import type { KeyVault, VaultWallet } from './vault.ts';

/** From maintenance.ts: the wallet as the vault sees it, where the check signature's audit row goes, and the conversion's audit row. */
export interface ConvertHelpers {
  vaultWallet: VaultWallet;
  recorder: ShareCheckRecorder;
  audit: (details: Record<string, unknown>) => AuditEntry;
}

const refused = (message: string) => new Error(message);
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
/** The threshold vault only signs here (its other methods are never reached). */
const noRemote = {} as KeyVault;

/** One secp256k1 wallet to DKLs23; 'skipped' when it is threshold already (its epoch commit is repeated). */
export async function convertOneToThresholdEcdsa(deps: KeyMaintenanceDeps, { wallet, shares }: StoredKeyWallet, helpers: ConvertHelpers): Promise<'done' | 'skipped' | 'ineligible'> {
  const vw = helpers.vaultWallet;
  if (isThresholdEcdsaWallet(wallet, shares)) {
    await deps.call(VAULT_METHODS.commitEpoch, { wallet: vw, share: latestShare(shares, 'dkls-signer')! });
    return 'skipped';
  }
  const halves = shares.filter((s) => s.role === 'user' || s.role === 'service');
  if (halves.length !== 2 || wallet.scheme !== 'DKLS') return 'ineligible';
  const publicKey = secp256k1KeyOfWallet(vw);
  const started = await deps.call<DklsImportStart>(DKLS_METHODS.importStart, { wallet: vw, shares: halves });
  const { epoch, recoveryShare } = started;
  // The OT setup runs in the presigning thread, which decodes and checks the dealt share (participant
  // 1, the wallet's stored key, no OT correlations yet); `abandon()` wipes its bytes if never sent.
  const party = threadOtSetupParty(sharedPresignThread(), { plain: started.apiShare, partyId: 1, publicKey, otSetupId: null });
  try {
    if (!Number.isSafeInteger(epoch) || epoch <= Math.max(...halves.map((s) => s.epoch)) || recoveryShare?.role !== 'recovery-signer' || recoveryShare.epoch !== epoch) {
      throw refused('the signer answered shares of another role or epoch');
    }
    // The signer spoke first (its hello is in `started`), so this side's hello and round 1 go together.
    const first = await party.first().catch((error: unknown) => {
      if (error instanceof ThresholdEcdsaError && error.code === 'INVALID_INPUT') throw refused("the signer's dealt share is not a valid threshold ECDSA share, or not participant 1's share of this wallet's key");
      throw error;
    });
    const { result: made, last } = await continueExchange(party, started, deps.call, wallet.id, first);
    const sealed = last?.sealed;
    if (!sealed || !sameBytes(sealed.publicKey, publicKey) || sealed.otSetupId !== made.otSetupId) throw refused('the signer finished the OT setup with another key or setup');
    if (sealed.signerShare.role !== 'dkls-signer' || sealed.signerShare.epoch !== epoch || dklsShareSetupId(sealed.signerShare) !== made.otSetupId) {
      throw refused('the signer answered a share of another role, epoch or OT setup');
    }
    const apiShare = sealDklsShareBytes(deps.keks.current('api'), wallet.id, 'dkls-api', plainOf(made), epoch);
    // A signature through the new pair, checked under the wallet's stored key, before anything is written.
    const vault = createThresholdKeyVault({ remote: noRemote, call: deps.call, keks: deps.keks, recovery: deps.recovery, presign: { pool: false } });
    await checkThresholdEcdsaShares(vault, vw, [apiShare, sealed.signerShare], helpers.recorder);
    await deps.beforeWrite?.(wallet.id);
    const written = await deps.store.replaceShares(
      wallet.id,
      halves.map((s) => ({ role: s.role, epoch: s.epoch })),
      [apiShare, sealed.signerShare, recoveryShare],
      helpers.audit({ epoch, custodyMode: 'threshold', kekIds: [apiShare.kekId, sealed.signerShare.kekId].sort(), recoveryKeyId: recoveryShare.kekId }),
      'threshold',
    );
    if (!written) return 'skipped';
    await deps.afterWrite?.(wallet.id);
    await deps.call(VAULT_METHODS.commitEpoch, { wallet: vw, share: sealed.signerShare });
    return 'done';
  } finally {
    party.abandon();
  }
}
