/**
 * `npm run custody -- convert --wallet-id W --mode threshold` and its project-wide form, with the
 * signer and the service as real processes: an isolated EVM wallet becomes DKLs23 2-of-2 keeping its
 * address, after real SIGKILLs of the signer (its key dealt; its OT setup recorded) and of the process
 * doing the work (before the write; after it, before the signer's epoch commit), each rerun ending
 * in exactly one conversion; its old XOR halves are refused from then on, its recovery share is
 * participant 3's, and the project-wide form converts the project's other secp256k1 wallets only.
 * Then `refresh`, with the signer killed in it and then the CLI, each time rerun, moves every wallet to a newer epoch.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createScratchDatabase, openDatabase, testDatabaseKinds, type DatabaseKind } from '@wallet/db';
import { encodeVaultValue, fileKekProvider, openDklsShare, openFromRecovery, readLocalRecoveryPrivateKey, secp256k1KeyOfWallet, VAULT_METHODS, type EncryptedShare } from '@wallet/domain';
import { createSignerClient, signerClientSettings } from '@wallet/signer/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { exited, localServiceEnv, spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';
import { spawnSigner } from '../testing/signer-process.ts';
import { signingMatrix } from '../testing/signing-matrix.ts';

const run = promisify(execFile);
const { children, cleanups } = suiteProcesses();
type Wallet = { id: string; type: 'EVM' | 'COSMOS'; address: string; publicKey: string };
type Row = { wallet_id: string; role: string; epoch: number; kek_id: string; iv: Uint8Array; ciphertext: Uint8Array };

describe.each(testDatabaseKinds)('npm run custody -- convert --mode threshold, killed and rerun (%s)', (kind: DatabaseKind) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), `wallet-dkls-convert-${kind}-`));
  const signerDir = path.join(dataDir, 'signer');
  let signer: ChildProcess;
  let service: ServiceProcess | undefined;
  let env: Record<string, string>;
  let databaseUrl = '';
  let apiKey = '';
  let projectId = '';
  let otherKey = '';
  let mainKey = '';
  const wallets: Record<'a' | 'b' | 'cosmos' | 'other', Wallet> = {} as never;
  const call = checkedServiceCalls(() => apiKey);

  const startSigner = async (crashAt?: string) => (signer = await spawnSigner({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...(crashAt ? { SIGNER_CRASH_AT: crashAt } : {}) }, children));
  const startService = async (crashAt?: string) => (service = await spawnService({ ...env, ...(crashAt ? { CUSTODY_CRASH_AT: crashAt } : {}) }, children));
  const stop = async (child: ChildProcess | undefined) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited(child);
  };
  /** A CLI as its own process: its exit status (or the signal that ended it) and its one JSON line. */
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    run(process.execPath, ['--import', 'tsx', ...args], { cwd: repoRoot, env: { ...env, ...extra } }).then(
      ({ stdout }) => ({ exit: 0 as number | string, out: JSON.parse(stdout.trim()) as Record<string, unknown> }),
      (error: { code: number | null; signal: string | null; stderr: string }) => ({ exit: error.signal ?? error.code ?? -1, out: error.stderr ? (JSON.parse(error.stderr.trim().split('\n').pop()!) as Record<string, unknown>) : {} }),
    );
  const convert = (args: string[], extra: Record<string, string> = {}) => cli(['apps/api/src/cli/custody.ts', 'convert', ...args, '--mode', 'threshold'], extra);
  const convertA = (extra: Record<string, string> = {}) => convert(['--wallet-id', wallets.a.id], extra);

  /** Reads the database itself (PGlite: opened here while the service that holds it is stopped, then started again). */
  async function query<T extends unknown[]>(...statements: Array<[string, unknown[]]>): Promise<T> {
    if (kind === 'pglite') await stop(service?.child);
    const database = kind === 'postgres' ? await openDatabase({ databaseUrl, migrate: false }) : await openDatabase({ dataDir: path.join(dataDir, 'db'), migrate: false, worker: false });
    try {
      const results: unknown[] = [];
      for (const [sql, params] of statements) results.push(await database.query(sql, params));
      return results as T;
    } finally {
      await database.close();
      if (kind === 'pglite') await startService();
    }
  }
  const sharesSql = `SELECT role, epoch, kek_id, iv, ciphertext FROM key_shares WHERE wallet_id = $1 ORDER BY role`;
  const custodyMode = async (wallet: Wallet) => (await call(service!.url, 'GET', `/v1/wallets/${wallet.id}`)).body.custodyMode as string;
  /** The epochs the signer committed (its own store). */
  const signerEpoch = (wallet: Wallet) => {
    const file = path.join(signerDir, 'epochs.jsonl');
    const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()) : [];
    return Math.max(0, ...lines.map((l) => JSON.parse(l) as { walletId: string; epoch: number }).filter((r) => r.walletId === wallet.id).map((r) => r.epoch));
  };
  /** A sign-message over REST, checked by the chain's SDK (viem for EVM, CosmJS for COSMOS) under the wallet's address. */
  async function signs(wallet: Wallet) {
    const cell = signingMatrix.find((c) => c.type === wallet.type && c.route === 'sign-message')!;
    const body = await cell.body(wallet);
    const signed = await call(service!.url, 'POST', `/v1/wallets/${wallet.id}/sign-message`, body);
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(await cell.verify(wallet, signed.body, body)).toBe(true);
  }

  /**
   * A conversion of wallet A whose working process SIGKILLs itself at `crashAt` (CUSTODY_CRASH_AT):
   * on PostgreSQL the CLI does the work; on PGlite the CLI asks the running service, so the service
   * carries the switch and is what dies.
   */
  async function apiKilledAt(crashAt: string) {
    if (kind === 'postgres') {
      expect((await convertA({ CUSTODY_CRASH_AT: crashAt })).exit).toBe('SIGKILL');
      return;
    }
    await stop(service!.child);
    await startService(crashAt);
    expect((await convertA()).exit).toBe(1);
    expect(await exited(service!.child)).toBe('SIGKILL');
    await startService();
  }
  async function signerKilledAt(point: string) {
    await stop(signer);
    await startSigner(point);
    const outcome = await convertA();
    expect(outcome.exit).toBe(1);
    expect(outcome.out.code).toBe('SIGNER_UNAVAILABLE');
    expect(await exited(signer)).toBe('SIGKILL');
    await startSigner();
  }

  beforeAll(async () => {
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    if (kind === 'postgres') {
      const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'dklsconvert');
      cleanups.push(scratch.drop);
      databaseUrl = scratch.url;
    }
    await startSigner();
    env = localServiceEnv(dataDir, { DATABASE_URL: databaseUrl, SIGNER_URL: `unix:${path.join(signerDir, 'signer.sock')}` });
    await startService();
    const issue = async (partner: string) => (await cli(['apps/api/src/cli/keys.ts', 'create', '--partner', partner])).out as { apiKey: string; projectId: string };
    apiKey = otherKey = (await issue('dkls-convert-other')).apiKey;
    const create = async (type: Wallet['type'], user: string) => {
      const created = await call(service!.url, 'POST', '/v1/wallets', { type, userIdentifier: user, userIdentifierType: 'CUSTOM_ID' });
      expect(created.status).toBe(201);
      expect(created.body.custodyMode).toBe('isolated');
      return created.body as Wallet;
    };
    wallets.other = await create('EVM', 'other');
    ({ apiKey, projectId } = await issue('dkls-convert'));
    mainKey = apiKey;
    wallets.a = await create('EVM', 'a');
    wallets.b = await create('EVM', 'b');
    wallets.cosmos = await create('COSMOS', 'cosmos');
  }, 120_000);
  afterAll(async () => {
    await stop(service?.child);
    await stop(signer);
  });

  it('converts one wallet once, through kills of the signer and of the working process at each step, keeping its address; its old halves no longer sign', async () => {
    const [halves] = await query<[Row[]]>([sharesSql, [wallets.a.id]]);
    expect(halves.map((r) => r.role)).toEqual(['service', 'user']);

    // The signer killed once it has dealt the key, then once it has recorded the OT setup: nothing is stored.
    await signerKilledAt('dkls-import-dealt');
    await signerKilledAt('dkls-import-setup');
    // The working process killed with the new shares checked (a test signature 2-of-2), before the write.
    await apiKilledAt('before-write:1');
    expect(await custodyMode(wallets.a)).toBe('isolated');
    expect(signerEpoch(wallets.a)).toBe(0);
    await signs(wallets.a);
    // Killed right after the write: the wallet is threshold, but the signer has not retired the halves yet.
    await apiKilledAt('after-write:1');
    expect(await custodyMode(wallets.a)).toBe('threshold');
    expect(signerEpoch(wallets.a)).toBe(0);

    // The rerun finds it converted and commits the epoch; a further run reports the same and changes nothing.
    const report = { command: 'convert', walletId: wallets.a.id, type: 'EVM', address: wallets.a.address, custodyMode: 'threshold', outcome: 'already-threshold' };
    expect(await convertA()).toEqual({ exit: 0, out: report });
    expect(signerEpoch(wallets.a)).toBe(1);
    expect(await convertA()).toEqual({ exit: 0, out: report });

    const got = (await call(service!.url, 'GET', `/v1/wallets/${wallets.a.id}`)).body;
    expect([got.address, got.publicKey, got.custodyMode]).toEqual([wallets.a.address, wallets.a.publicKey, 'threshold']);
    await signs(wallets.a);

    // The signer refuses the old halves: their epoch is below the wallet's.
    const settings = signerClientSettings({ APP_ENV: 'local', SIGNER_URL: `unix:${path.join(signerDir, 'signer.sock')}` }, dataDir);
    const client = createSignerClient({ url: settings.url, tls: settings.tls, timeoutMs: 10_000 });
    const vaultWallet = { id: wallets.a.id, type: 'EVM' as const, scheme: 'DKLS' as const, address: wallets.a.address, publicKey: wallets.a.publicKey };
    const share = (r: Row): EncryptedShare => ({ role: r.role as EncryptedShare['role'], epoch: Number(r.epoch), kekId: r.kek_id, iv: new Uint8Array(r.iv), ciphertext: new Uint8Array(r.ciphertext) });
    try {
      const old = client.call(VAULT_METHODS.sign, encodeVaultValue({ wallet: vaultWallet, shares: halves.map(share), operation: 'message', input: { message: 'old halves' }, requestId: null, action: 'wallet.sign.message' }));
      await expect(old).rejects.toMatchObject({ code: 'SHARE_EPOCH_RETIRED' });
    } finally {
      await client.close();
    }

    // One conversion written (with its audit row), whatever the kills; the shares of epoch 1; participant 3's
    // recovery share is p(3) with Y_3 = p(3)·G, the Y_3 the API's own share carries.
    const [rows, audits] = await query<[Row[], Array<{ n: number }>]>(
      [sharesSql, [wallets.a.id]],
      [`SELECT count(*)::int AS n FROM audit_log WHERE wallet_id = $1 AND action = 'wallet.custody.convert'`, [wallets.a.id]],
    );
    expect(rows.map((r) => `${r.role}@${r.epoch}`)).toEqual(['dkls-api@1', 'dkls-signer@1', 'recovery-signer@1']);
    expect(audits).toEqual([{ n: 1 }]);
    const publicKey = secp256k1KeyOfWallet(vaultWallet);
    const api = openDklsShare(fileKekProvider(path.join(dataDir, 'api'), ['api']), wallets.a.id, 'dkls-api', share(rows[0]!), publicKey);
    const item = openFromRecovery(readLocalRecoveryPrivateKey(path.join(dataDir, 'recovery')), wallets.a.id, share(rows[2]!), publicKey);
    if (item.kind !== 'ecdsa-dealt-share') throw new Error(`recovery item of kind ${item.kind}`);
    expect(Buffer.from(secp256k1.getPublicKey(item.share.share, true)).equals(Buffer.from(item.share.verifyingShare))).toBe(true);
    expect(Buffer.from(api.verifyingShares[2]).equals(Buffer.from(item.share.verifyingShare))).toBe(true);
    api.wipe();
  }, 240_000);

  it("the project-wide form converts the project's other wallets, skips the converted one and leaves other projects alone", async () => {
    const counts = await convert(['--project-id', projectId, '--env', 'development']);
    expect(counts).toEqual({ exit: 0, out: { command: 'convert', projectId, environment: 'development', mode: 'threshold', wallets: 3, done: 2, skipped: 1, failed: 0, failures: [] } });
    for (const wallet of [wallets.b, wallets.cosmos]) {
      expect(await custodyMode(wallet)).toBe('threshold');
      expect(signerEpoch(wallet)).toBe(1);
      await signs(wallet);
    }
    apiKey = otherKey;
    expect(await custodyMode(wallets.other)).toBe('isolated');
    // A mode other than threshold is refused: a conversion is one way.
    const back = await cli(['apps/api/src/cli/custody.ts', 'convert', '--wallet-id', wallets.a.id, '--mode', 'isolated']);
    expect(back.exit).toBe(1);
    expect(back.out.code).toBe('INVALID_REQUEST');
  }, 120_000);
  it('refresh through the CLI, the signer killed once it recorded a new OT setup, then the CLI killed after its first write; each rerun: every wallet at a newer epoch, same address, signing', async () => {
    const refresh = (extra: Record<string, string> = {}) => cli(['apps/api/src/cli/custody.ts', 'refresh'], extra);
    const epochs = () => Object.values(wallets).map(signerEpoch);
    const before = epochs();
    // The signer dies at the end of the first wallet's refresh: it has recorded the new OT setup, the API stored nothing.
    await stop(signer);
    await startSigner('dkls-refresh-setup');
    // (Wallets go in id order: the isolated one may be re-padded before the kill; every wallet from the killed one on fails.)
    const killed = (await refresh()).out as { wallets: number; done: number; failed: number };
    expect([killed.wallets, killed.done + killed.failed, killed.done <= 1]).toEqual([4, 4, true]);
    expect(await exited(signer)).toBe('SIGKILL');
    await startSigner();
    const threshold = [wallets.a, wallets.b, wallets.cosmos];
    expect(threshold.map(signerEpoch)).toEqual(threshold.map((w) => before[Object.values(wallets).indexOf(w)]));
    // The killed wallet's stored shares' OT setup is no longer the signer's current one: its signature renews it first.
    apiKey = mainKey;
    for (const wallet of threshold) await signs(wallet);
    if (kind === 'postgres') expect((await refresh({ CUSTODY_CRASH_AT: 'after-write:1' })).exit).toBe('SIGKILL');
    else {
      await stop(service!.child);
      await startService('after-write:1');
      expect((await refresh()).exit).toBe(1);
      expect(await exited(service!.child)).toBe('SIGKILL');
      await startService();
    }
    expect(await refresh()).toEqual({ exit: 0, out: { command: 'refresh', wallets: 4, done: 4, skipped: 0, failed: 0, failures: [] } });
    epochs().forEach((epoch, index) => expect(epoch).toBeGreaterThan(before[index]!));
    apiKey = mainKey;
    for (const wallet of [wallets.a, wallets.cosmos]) await signs(wallet);
    apiKey = otherKey;
    await signs(wallets.other);
  }, 120_000);
});
