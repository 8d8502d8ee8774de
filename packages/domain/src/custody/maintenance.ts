/**
 * Key maintenance, run by the operator (`npm run custody -- convert | refresh`), the API side:
 *
 * - **convert**: every Ed25519 wallet still split into XOR halves becomes FROST 2-of-3. The signer
 *   joins the halves once, splits the RFC 8032 scalar with `importSeed` (trusted dealer), seals its own
 *   share and participant 3's, and hands participant 1's share to the API over mTLS; the API seals it
 *   under its own KEK, signs a test message through the new shares and checks it under the wallet's
 *   stored key, and only then replaces the halves with the new shares in one transaction. The address
 *   does not change. The new shares are of the next epoch, which the signer records afterwards
 *   (`commitEpoch`), so the halves are refused from then on.
 * - **convert to threshold** (one wallet, or every wallet of a project): the above for an Ed25519
 *   wallet, and for a secp256k1 wallet the DKLs23 conversion of dkls-convert.ts (the signer deals the
 *   key into DKLs23 shares, the two run an OT setup, a test signature 2-of-2, one write that also sets
 *   the wallet's custody mode to `threshold`, then the epoch commit). The address does not change.
 * - **refresh**: FROST wallets get a zero-sharing refresh (participant 3's deltas sealed to the
 *   recovery key as additional contributions), threshold ECDSA wallets one too followed by a fresh OT
 *   setup (dkls-refresh.ts), isolated secp256k1 wallets a new XOR pad; all at the next epoch, written
 *   in one transaction, then committed in the signer.
 *
 * Idempotent and resumable: a wallet is either fully in its old state or fully in its new one in the
 * database (one transaction); a run killed after the write but before the commit is finished by the
 * next run (the commit is repeated for converted wallets; a refresh simply runs again).
 */
import { refreshFinish, refreshRound1, refreshRound2, wipeKeyPackage, wipeRoundSecret, type Round1Package, type Round2Package } from '@wallet/frost-ed25519';
import { ApiError, conflict, notFound } from '../errors.ts';
import type { AuditEntry, WalletRecord } from '../ports.ts';
import { convertOneToThresholdEcdsa } from './dkls-convert.ts';
import { isThresholdEcdsaWallet } from './dkls-coordinator.ts';
import { refreshThresholdEcdsa } from './dkls-refresh.ts';
import { isFrostWallet, latestShare, openApiShare, type VaultCall } from './frost-coordinator.ts';
import { decodeFrostShare, frostRefreshContext, samePublicKeyPackage, sealFrostShare } from './frost-share.ts';
import { frostGroupKey } from './group-key.ts';
import { sealToRecovery, type RecoveryPublicKey } from './recovery-seal.ts';
import { checkFrostShares, checkXorShares, type ShareCheckRecorder } from './share-check.ts';
import type { CustodyMode, EncryptedShare, KekProvider } from './types.ts';
import { wipe } from './types.ts';
import { VAULT_METHODS } from './vault-rpc.ts';
import type { FrostImportResult, FrostRoundStart, FrostSealedShares, VaultWallet } from './vault.ts';

export interface StoredKeyWallet {
  wallet: WalletRecord;
  shares: EncryptedShare[];
}

export interface KeyMaintenanceStore {
  /** API-custody wallets (every share stored here), by id, after `after`; only the project's with `projectId`. */
  list(after: string | null, limit: number, projectId?: string): Promise<StoredKeyWallet[]>;
  /** One wallet with its shares, whatever its custody; null when there is none. */
  get(walletId: string): Promise<StoredKeyWallet | null>;
  /**
   * One transaction: deletes exactly the `remove` rows, inserts `add` and the audit row, and sets the
   * wallet's custody mode when one is given. False (and nothing written) when one of `remove` is no
   * longer there (another run got there first).
   */
  replaceShares(walletId: string, remove: Array<Pick<EncryptedShare, 'role' | 'epoch'>>, add: EncryptedShare[], audit: AuditEntry, custodyMode?: CustodyMode): Promise<boolean>;
  /** The audit row of a signature made for a share check (as every signature has one). */
  appendAudit(audit: AuditEntry): Promise<void>;
}

export interface KeyMaintenanceDeps {
  store: KeyMaintenanceStore;
  call: VaultCall;
  /** The API's KEKs. */
  keks: KekProvider;
  recovery: () => RecoveryPublicKey;
  /** Tests: runs right before a wallet's new shares are written (a throw there is a kill mid-run). */
  beforeWrite?: (walletId: string) => void | Promise<void>;
  /** Tests: runs right after a wallet's new shares are written, before the signer records their epoch. */
  afterWrite?: (walletId: string) => void | Promise<void>;
}

export interface MaintenanceCounts {
  command: 'convert' | 'refresh';
  wallets: number;
  /** convert: converted; refresh: refreshed. */
  done: number;
  /** convert: already FROST; refresh: Ed25519 wallets not converted yet (run convert first). */
  skipped: number;
  failed: number;
  failures: Array<{ walletId: string; error: string }>;
}

const vaultWallet = (w: WalletRecord): VaultWallet => ({ id: w.id, type: w.type, scheme: w.scheme, address: w.address, publicKey: w.publicKey });
const audit = (w: WalletRecord, action: string, details: Record<string, unknown>): AuditEntry => ({ projectId: w.projectId, apiKeyId: null, walletId: w.id, requestId: null, action, details });
/** Where a share check's signature is recorded: an audit row as for every signature (verify-log pairs it with the signer's log). */
const checkRecorder =
  (deps: KeyMaintenanceDeps, w: WalletRecord, purpose: 'convert' | 'refresh' | 'recover'): ShareCheckRecorder =>
  ({ digest, requestId }) =>
    deps.store.appendAudit({ ...audit(w, 'wallet.sign.custody-check', { digest, purpose }), requestId });
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

async function commitEpoch(deps: KeyMaintenanceDeps, wallet: VaultWallet, share: EncryptedShare): Promise<void> {
  await deps.call(VAULT_METHODS.commitEpoch, { wallet, share });
}

/** One wallet's conversion; 'skipped' when it is FROST already (its epoch commit is repeated). */
async function convertOne(deps: KeyMaintenanceDeps, { wallet, shares }: StoredKeyWallet): Promise<'done' | 'skipped' | 'ineligible'> {
  const vw = vaultWallet(wallet);
  if (isFrostWallet(wallet, shares)) {
    await commitEpoch(deps, vw, latestShare(shares, 'frost-signer')!);
    return 'skipped';
  }
  const halves = shares.filter((s) => s.role === 'user' || s.role === 'service');
  if (halves.length !== 2) return 'ineligible';
  const groupKey = frostGroupKey(vw);
  const imported = await deps.call<FrostImportResult>(VAULT_METHODS.frostImport, { wallet: vw, shares: halves });
  let opened;
  try {
    opened = decodeFrostShare(imported.apiShare);
  } finally {
    wipe(imported.apiShare);
  }
  try {
    const epoch = imported.signerShare.epoch;
    if (opened.keyPackage.identifier !== 1 || !sameBytes(opened.keyPackage.groupPublicKey, groupKey) || !samePublicKeyPackage(opened.publicKeyPackage, imported.publicKeyPackage)) {
      throw new Error("the signer's split is not of this wallet's key");
    }
    if (imported.signerShare.role !== 'frost-signer' || imported.recoveryShare.role !== 'recovery-signer' || imported.recoveryShare.epoch !== epoch) {
      throw new Error('the signer answered shares of another role or epoch');
    }
    const apiShare = sealFrostShare(deps.keks.current('api'), wallet.id, 'frost-api', opened, epoch);
    // A signature through the new shares, checked under the wallet's stored key, before anything is written.
    await checkFrostShares(deps.call, vw, opened, imported.signerShare, groupKey, checkRecorder(deps, wallet, 'convert'));
    await deps.beforeWrite?.(wallet.id);
    const written = await deps.store.replaceShares(
      wallet.id,
      halves.map((s) => ({ role: s.role, epoch: s.epoch })),
      [apiShare, imported.signerShare, imported.recoveryShare],
      audit(wallet, 'wallet.custody.convert', { epoch, kekIds: [apiShare.kekId, imported.signerShare.kekId].sort(), recoveryKeyId: imported.recoveryShare.kekId }),
      'threshold',
    );
    if (!written) return 'skipped';
    await deps.afterWrite?.(wallet.id);
    await commitEpoch(deps, vw, imported.signerShare);
    return 'done';
  } finally {
    wipeKeyPackage(opened.keyPackage);
  }
}

/** `purpose` names the run in the audit rows (`recover`: the refresh that ends a recovery, recover.ts). */
export async function refreshFrost(deps: KeyMaintenanceDeps, { wallet, shares }: StoredKeyWallet, purpose: 'refresh' | 'recover' = 'refresh'): Promise<void> {
  const vw = vaultWallet(wallet);
  const apiShare = latestShare(shares, 'frost-api')!;
  const signerShare = latestShare(shares, 'frost-signer')!;
  if (apiShare.epoch !== signerShare.epoch) throw new Error('the stored FROST shares are of different epochs');
  const epoch = apiShare.epoch + 1;
  const opened = openApiShare(deps.keks, vw, apiShare);
  const mine = refreshRound1(opened.keyPackage, frostRefreshContext(wallet.id, epoch));
  let secret = mine;
  try {
    const start = await deps.call<FrostRoundStart>(VAULT_METHODS.frostRefreshStart, { wallet: vw, share: signerShare, round1: mine.package });
    const round2 = refreshRound2(mine, [start.round1 as Round1Package]);
    secret = round2.secret;
    const offline = round2.offline.find((c) => c.recipient === 3)!;
    const next = refreshFinish(round2.secret, [start.round2 as Round2Package], opened.keyPackage, opened.publicKeyPackage);
    try {
      const theirs = await deps.call<FrostSealedShares>(VAULT_METHODS.frostRefreshFinish, { sessionId: start.sessionId, walletId: wallet.id, round2: round2.packages.find((p) => p.recipient === 2)! });
      if (!samePublicKeyPackage(theirs.publicKeyPackage, next.publicKeyPackage)) throw new Error('the signer refreshed to another public key package');
      if (theirs.signerShare.role !== 'frost-signer' || theirs.signerShare.epoch !== epoch || theirs.recoveryShare.epoch !== epoch) throw new Error('the signer answered shares of another epoch');
      const groupKey = next.publicKeyPackage.groupPublicKey;
      if (!sameBytes(groupKey, opened.keyPackage.groupPublicKey)) throw new Error('the refresh changed the group key');
      // The new pair must sign for the wallet's key before it replaces the old one.
      await checkFrostShares(deps.call, vw, next, theirs.signerShare, groupKey, checkRecorder(deps, wallet, purpose));
      const add = [
        sealFrostShare(deps.keks.current('api'), wallet.id, 'frost-api', next, epoch),
        theirs.signerShare,
        sealToRecovery(deps.recovery(), wallet.id, 'recovery-api', groupKey, epoch, { kind: 'contribution', contribution: offline }),
        theirs.recoveryShare,
      ];
      await deps.beforeWrite?.(wallet.id);
      const remove = [apiShare, signerShare].map((s) => ({ role: s.role, epoch: s.epoch }));
      if (!(await deps.store.replaceShares(wallet.id, remove, add, audit(wallet, `wallet.custody.${purpose}`, { epoch })))) return;
      await deps.afterWrite?.(wallet.id);
      await commitEpoch(deps, vw, theirs.signerShare);
    } finally {
      wipeKeyPackage(next.keyPackage);
      offline.share.fill(0);
    }
  } finally {
    wipeRoundSecret(secret);
    wipeKeyPackage(opened.keyPackage);
  }
}

async function repadXor(deps: KeyMaintenanceDeps, { wallet, shares }: StoredKeyWallet): Promise<void> {
  const vw = vaultWallet(wallet);
  const halves = shares.filter((s) => s.role === 'user' || s.role === 'service');
  const { shares: next } = await deps.call<{ shares: EncryptedShare[] }>(VAULT_METHODS.xorRepad, { wallet: vw, shares: halves });
  const service = next.find((s) => s.role === 'service');
  if (next.length !== 2 || !service || !next.some((s) => s.role === 'user')) throw new Error('the signer answered other shares');
  await checkXorShares(deps.call, vw, next, checkRecorder(deps, wallet, 'refresh'));
  await deps.beforeWrite?.(wallet.id);
  const written = await deps.store.replaceShares(wallet.id, halves.map((s) => ({ role: s.role, epoch: s.epoch })), next, audit(wallet, 'wallet.custody.refresh', { epoch: service.epoch }));
  if (!written) return;
  await deps.afterWrite?.(wallet.id);
  await commitEpoch(deps, vw, service);
}

async function eachWallet(
  deps: KeyMaintenanceDeps,
  command: MaintenanceCounts['command'],
  run: (entry: StoredKeyWallet) => Promise<'done' | 'skipped' | 'ineligible'>,
  projectId?: string,
): Promise<MaintenanceCounts> {
  const counts: MaintenanceCounts = { command, wallets: 0, done: 0, skipped: 0, failed: 0, failures: [] };
  let after: string | null = null;
  for (;;) {
    const page = await deps.store.list(after, 100, projectId);
    if (page.length === 0) return counts;
    for (const entry of page) {
      try {
        const outcome = await run(entry);
        if (outcome === 'ineligible') continue;
        counts.wallets += 1;
        counts[outcome] += 1;
      } catch (error) {
        // Each wallet stands alone: its old shares stay in place, the others go on.
        counts.wallets += 1;
        counts.failed += 1;
        // A refusal's code with its message (an INTERNAL_ERROR alone would not say which step failed).
        const code = (error as { code?: string }).code;
        counts.failures.push({ walletId: entry.wallet.id, error: code ? `${code}: ${(error as Error).message}` : (error as Error).message });
      }
    }
    after = page[page.length - 1]!.wallet.id;
  }
}

/** Converts every XOR-split Ed25519 wallet to FROST (see the module comment). */
export function convertWalletsToFrost(deps: KeyMaintenanceDeps): Promise<MaintenanceCounts> {
  return eachWallet(deps, 'convert', (entry) => (entry.wallet.scheme === 'ED25519' ? convertOne(deps, entry) : Promise.resolve('ineligible' as const)));
}

/** Either scheme to threshold: FROST for an Ed25519 wallet, DKLs23 for a secp256k1 one; 'skipped' when it is threshold already. */
function convertToThreshold(deps: KeyMaintenanceDeps, entry: StoredKeyWallet): Promise<'done' | 'skipped' | 'ineligible'> {
  if (entry.wallet.scheme === 'ED25519') return convertOne(deps, entry);
  return convertOneToThresholdEcdsa(deps, entry, helpersOf(deps, entry.wallet, 'convert'));
}

/** What the threshold ECDSA conversion and refresh need of this module: the vault's view of the wallet, the check's recorder, the audit row. */
export const helpersOf = (deps: KeyMaintenanceDeps, wallet: WalletRecord, purpose: 'convert' | 'refresh' | 'recover') => ({
  vaultWallet: vaultWallet(wallet),
  recorder: checkRecorder(deps, wallet, purpose),
  audit: (details: Record<string, unknown>) => audit(wallet, `wallet.custody.${purpose}`, details),
});

export interface WalletConversion {
  command: 'convert';
  walletId: string;
  type: WalletRecord['type'];
  address: string;
  custodyMode: 'threshold';
  /** `converted` by this run; `already-threshold` when it was before (nothing changed but a repeated epoch commit). */
  outcome: 'converted' | 'already-threshold';
}

/**
 * One wallet to threshold custody (`npm run custody -- convert --wallet-id W --mode threshold`),
 * keeping its address; resumable like the whole-service conversion. 404 when there is no such
 * wallet, 409 when it cannot be converted (a client-held wallet not migrated yet), and when the run
 * fails the wallet keeps its isolated shares and the error says why (rerun it).
 */
export async function convertWalletToThreshold(deps: KeyMaintenanceDeps, walletId: string): Promise<WalletConversion> {
  const entry = await deps.store.get(walletId);
  if (!entry) throw notFound('Wallet');
  const { wallet } = entry;
  if (wallet.custody !== 'api_key') throw conflict('Only a wallet whose shares are all held by the service can be converted; migrate this client-held wallet first');
  let outcome: 'done' | 'skipped' | 'ineligible';
  try {
    outcome = await convertToThreshold(deps, entry);
  } catch (error) {
    if (error instanceof ApiError && error.status !== 500) throw error;
    throw new ApiError(500, 'CONVERSION_FAILED', `the conversion did not complete; the wallet keeps its isolated shares, run the command again (${(error as Error).message})`, { walletId });
  }
  if (outcome === 'ineligible') throw conflict("This wallet's stored shares are neither an isolated pair nor threshold shares; nothing was changed", { walletId });
  return { command: 'convert', walletId, type: wallet.type, address: wallet.address, custodyMode: 'threshold', outcome: outcome === 'done' ? 'converted' : 'already-threshold' };
}

/** Every API-custody wallet of a project to threshold custody (`convert --project-id P --mode threshold`); see `convertWalletToThreshold`. */
export function convertProjectToThreshold(deps: KeyMaintenanceDeps, projectId: string): Promise<MaintenanceCounts> {
  return eachWallet(deps, 'convert', (entry) => convertToThreshold(deps, entry), projectId);
}

/** Refreshes every FROST and threshold ECDSA wallet and re-pads every isolated secp256k1 wallet, each at its next epoch. */
export function refreshWalletShares(deps: KeyMaintenanceDeps): Promise<MaintenanceCounts> {
  return eachWallet(deps, 'refresh', async (entry) => {
    if (isFrostWallet(entry.wallet, entry.shares)) await refreshFrost(deps, entry);
    else if (isThresholdEcdsaWallet(entry.wallet, entry.shares)) await refreshThresholdEcdsa(deps, entry, helpersOf(deps, entry.wallet, 'refresh'));
    else if (entry.wallet.scheme === 'DKLS' && entry.shares.filter((s) => s.role === 'user' || s.role === 'service').length === 2) await repadXor(deps, entry);
    else return entry.wallet.scheme === 'ED25519' && entry.shares.some((s) => s.role === 'user') ? 'skipped' : 'ineligible';
    return 'done';
  });
}
