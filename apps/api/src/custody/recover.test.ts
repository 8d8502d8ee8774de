/**
 * `npm run custody -- recover` with real processes (PostgreSQL, the signer and the API as `npm start`
 * runs them, the command as its own process): a Solana (FROST) wallet and an EVM threshold (DKLs23)
 * wallet lose the API's share (its row gone), then the signer's (its row sealed under a KEK the signer
 * no longer has). Each time a wrong recovery key is refused and nothing changes, a run killed before
 * or after its write is finished by the rerun, the wallet then signs for the same address (verified by
 * @solana/kit and @noble/curves, by viem), and the lost party's old share is refused.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { address as solanaAddress, getPublicKeyFromAddress, verifySignature, type SignatureBytes } from '@solana/kit';
import { createScratchDatabase, openDatabase } from '@wallet/db';
import { decodeVaultValue, DKLS_METHODS, ed25519KeyOfWallet, encodeVaultValue, fileKekProvider, openDklsShare, secp256k1KeyOfWallet, VAULT_METHODS, type EncryptedShare } from '@wallet/domain';
import { RECOVER_METHODS } from '@wallet/domain/custody/recover-rpc.ts';
import { createSignerClient, signerClientSettings } from '@wallet/signer/client';
import { verifyMessage, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { exited, localServiceEnv, spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';
import { signerOutput, spawnSigner } from '../testing/signer-process.ts';

const run = promisify(execFile);
const { children, cleanups } = suiteProcesses();
const server = process.env.TEST_DATABASE_URL;

type Wallet = { id: string; type: 'SOLANA' | 'EVM'; address: string; publicKey: string };
type Row = EncryptedShare & { role: string };

describe.runIf(server)('npm run custody -- recover (PostgreSQL, real processes)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-recover-'));
  const signerDir = path.join(dataDir, 'signer');
  const recoveryKey = path.join(dataDir, 'recovery', 'recovery-private.pem');
  const wrongKey = path.join(dataDir, 'wrong-recovery.pem');
  let signer: ChildProcess;
  let service: ServiceProcess;
  let env: Record<string, string>;
  let databaseUrl = '';
  let apiKey = '';
  const wallets = {} as Record<'SOLANA' | 'EVM', Wallet>;
  const call = checkedServiceCalls(() => apiKey);

  /** The command as the operator runs it; resolves with its JSON line, its error line, or how it was killed. */
  async function recover(wallet: Wallet, lost: 'api' | 'signer', options: { key?: string; crashAt?: string } = {}) {
    const args = ['--import', 'tsx', 'apps/api/src/cli/custody.ts', 'recover', '--wallet-id', wallet.id, '--lost', lost, '--recovery-key-file', options.key ?? recoveryKey];
    try {
      const { stdout } = await run(process.execPath, args, { cwd: repoRoot, env: { ...env, ...(options.crashAt ? { CUSTODY_CRASH_AT: options.crashAt } : {}) } });
      return { ok: true as const, body: JSON.parse(stdout.trim()) as Record<string, unknown> };
    } catch (error) {
      const failure = error as { signal?: string; stderr?: string };
      return { ok: false as const, signal: failure.signal ?? null, error: failure.stderr?.trim() ? (JSON.parse(failure.stderr.trim().split('\n').pop()!) as Record<string, unknown>) : null };
    }
  }

  async function withDatabase<T>(use: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
    const database = await openDatabase({ databaseUrl, migrate: false });
    try {
      return await use(database);
    } finally {
      await database.close();
    }
  }
  const rows = (wallet: Wallet) =>
    withDatabase(async (db) =>
      (await db.query<{ role: string; epoch: number; kek_id: string; iv: Uint8Array; ciphertext: Uint8Array }>('SELECT role, epoch, kek_id, iv, ciphertext FROM key_shares WHERE wallet_id = $1 ORDER BY role, epoch', [wallet.id])).map(
        (r): Row => ({ role: r.role as EncryptedShare['role'], epoch: Number(r.epoch), kekId: r.kek_id, iv: new Uint8Array(r.iv), ciphertext: new Uint8Array(r.ciphertext) }),
      ),
    );
  const fingerprint = async (wallet: Wallet) => (await rows(wallet)).map((r) => `${r.role}@${r.epoch}:${r.kekId}:${Buffer.from(r.ciphertext).toString('base64').slice(0, 24)}`);
  const roles = async (wallet: Wallet) => (await rows(wallet)).map((r) => `${r.role}@${r.epoch}`);
  const exec = (sql: string, params: unknown[]) => withDatabase((db) => db.query(sql, params));

  async function signs(wallet: Wallet) {
    const message = `recovered ${Math.random()}`;
    const signed = await call(service.url, 'POST', `/v1/wallets/${wallet.id}/sign-message`, { message });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    if (wallet.type === 'EVM') {
      expect(await verifyMessage({ address: wallet.address as Hex, message, signature: `0x${signed.body.signature}` })).toBe(true);
      return;
    }
    const bytes = new TextEncoder().encode(message);
    const signature = new Uint8Array(Buffer.from(signed.body.signature, 'hex'));
    expect(await verifySignature(await getPublicKeyFromAddress(solanaAddress(wallet.address)), signature as SignatureBytes, bytes)).toBe(true);
    expect(ed25519.verify(signature, bytes, ed25519KeyOfWallet('SOLANA', wallet.publicKey), { zip215: false })).toBe(true);
  }

  /** The signer called as the API calls it (its mTLS client credentials). */
  async function withSigner(use: (client: ReturnType<typeof createSignerClient>) => Promise<void>) {
    const settings = signerClientSettings({ APP_ENV: 'local', SIGNER_URL: `unix:${path.join(signerDir, 'signer.sock')}` }, dataDir);
    const client = createSignerClient({ url: settings.url, tls: settings.tls, timeoutMs: 10_000 });
    try {
      await use(client);
    } finally {
      await client.close();
    }
  }
  const vaultWalletOf = (wallet: Wallet) => ({ id: wallet.id, type: wallet.type, scheme: wallet.type === 'EVM' ? 'DKLS' : 'ED25519', address: wallet.address, publicKey: wallet.publicKey });

  /** The signer refuses a sealed share of a retired epoch before it reads anything else of the call. */
  async function signerRefuses(wallet: Wallet, share: Row) {
    const settings = signerClientSettings({ APP_ENV: 'local', SIGNER_URL: `unix:${path.join(signerDir, 'signer.sock')}` }, dataDir);
    const client = createSignerClient({ url: settings.url, tls: settings.tls, timeoutMs: 10_000 });
    const vaultWallet = vaultWalletOf(wallet);
    try {
      const attempt =
        wallet.type === 'EVM'
          ? client.call(DKLS_METHODS.signStart, encodeVaultValue({ wallet: vaultWallet, share, messages: [Uint8Array.of(1)] }))
          : client.call(VAULT_METHODS.frostRefreshStart, encodeVaultValue({ wallet: vaultWallet, share, round1: { identifier: 1, commitment: [new Uint8Array(32)], proof: { R: new Uint8Array(32), z: new Uint8Array(32) } } }));
      await expect(attempt).rejects.toMatchObject({ code: 'SHARE_EPOCH_RETIRED' });
    } finally {
      await client.close();
    }
  }

  beforeAll(async () => {
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const scratch = await createScratchDatabase(server!, 'recover');
    cleanups.push(scratch.drop);
    databaseUrl = scratch.url;
    signer = await spawnSigner({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'info' }, children);
    env = localServiceEnv(dataDir, { DATABASE_URL: databaseUrl, SIGNER_URL: `unix:${path.join(signerDir, 'signer.sock')}` });
    service = await spawnService(env, children);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'recover'], { cwd: repoRoot, env });
    const issued = JSON.parse(stdout.trim()) as { apiKey: string; projectId: string };
    apiKey = issued.apiKey;
    await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/custody.ts', 'mode', '--project-id', issued.projectId, '--env', 'development', '--mode', 'threshold'], { cwd: repoRoot, env });
    for (const type of ['SOLANA', 'EVM'] as const) {
      const created = await call(service.url, 'POST', '/v1/wallets', { type, userIdentifier: `recover-${type}`, userIdentifierType: 'CUSTOM_ID' });
      expect(created.status).toBe(201);
      expect(created.body.custodyMode).toBe('threshold');
      wallets[type] = created.body as Wallet;
      await signs(wallets[type]);
    }
    writeFileSync(wrongKey, generateKeyPairSync('x25519').privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  }, 180_000);
  afterAll(async () => {
    signer?.kill('SIGTERM');
    service?.child.kill('SIGTERM');
    await Promise.all([signer && exited(signer), service && exited(service.child)]);
  });

  it("the API server's bundle (what npm start runs, built by spawnService) holds none of the recovery command's code", () => {
    const inputs = Object.keys(JSON.parse(readFileSync(path.join(repoRoot, 'apps/api/dist/inputs.json'), 'utf8')) as Record<string, number>).map((file) => path.relative(repoRoot, file));
    expect(inputs).toContain('packages/domain/src/custody/maintenance.ts');
    const recovery = ['apps/api/src/custody/recover-command.ts', 'packages/domain/src/custody/recover.ts', 'packages/domain/src/custody/recover-key.ts'];
    expect(inputs.filter((file) => recovery.includes(file))).toEqual([]);
  });

  describe.each(['SOLANA', 'EVM'] as const)('%s wallet', (type) => {
    const prefix = type === 'EVM' ? 'dkls' : 'frost';

    it("the API's share lost (its row gone): a wrong key changes nothing; a run killed before its write, rerun, rebuilds it; same address, the old API share no longer combines", async () => {
      const wallet = wallets[type];
      const old = (await rows(wallet)).find((r) => r.role === `${prefix}-api`)!;
      const epoch = old.epoch;
      await exec('DELETE FROM key_shares WHERE wallet_id = $1 AND role = $2', [wallet.id, `${prefix}-api`]);
      const lostState = await fingerprint(wallet);

      const wrong = await recover(wallet, 'api', { key: wrongKey });
      expect(wrong).toMatchObject({ ok: false, error: { code: 'RECOVERY_KEY_MISMATCH' } });
      expect(String(wrong.ok ? '' : wrong.error?.message)).toMatch(/is not the one this wallet's recovery shares are sealed to .*; nothing was changed/);
      chmodSync(wrongKey, 0o644);
      expect(await recover(wallet, 'api', { key: wrongKey })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/chmod 600/) } });
      chmodSync(wrongKey, 0o600);
      expect(await fingerprint(wallet)).toEqual(lostState);

      // The API's credentials alone get nothing of the signer's share: the proof of participant 3's share is required.
      const signerShare = (await rows(wallet)).find((r) => r.role === `${prefix}-signer`)!;
      const R = type === 'EVM' ? secp256k1.Point.BASE.toBytes(true) : ed25519.Point.BASE.toBytes();
      await withSigner(async (client) => {
        const vw = vaultWalletOf(wallet);
        const { challenge } = decodeVaultValue(await client.call(RECOVER_METHODS.inspect, encodeVaultValue({ wallet: vw, share: signerShare }))) as { challenge: string };
        const contribute = () => client.call(RECOVER_METHODS.contribute, encodeVaultValue({ wallet: vw, share: signerShare, target: 1, challenge, proof: { R, z: new Uint8Array(32).fill(7) } }));
        await expect(contribute()).rejects.toMatchObject({ code: 'RECOVERY_PROOF_REFUSED', status: 403 });
        // Its challenge is single-use: a proof (valid or not) cannot be sent twice.
        await expect(contribute()).rejects.toMatchObject({ code: 'FROST_SESSION_UNKNOWN' });
      });

      // The signer logs each hand-over of its share (none for the refused proof), never the share.
      const handovers = () =>
        signerOutput(signer)
          .split('\n')
          .filter((line) => line.includes('handed over for a recovery'))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((entry) => entry.walletId === wallet.id);
      expect(handovers()).toEqual([]);

      const killed = await recover(wallet, 'api', { crashAt: 'before-write:1' });
      expect(killed).toMatchObject({ ok: false, signal: 'SIGKILL' });
      expect(await fingerprint(wallet)).toEqual(lostState);

      const done = await recover(wallet, 'api');
      expect(done).toEqual({ ok: true, body: { command: 'recover', walletId: wallet.id, type, address: wallet.address, lost: 'api', outcome: 'recovered', epoch: epoch + 1 } });
      // Handed over twice: to the run killed before its write, and to the rerun.
      const handed = handovers();
      expect(handed).toEqual([0, 1].map(() => expect.objectContaining({ level: 'warn', walletId: wallet.id, scheme: type === 'EVM' ? 'DKLS' : 'ED25519', epoch, client: 'wallet-api' })));
      expect(Object.keys(handed[0]!).sort()).toEqual(['client', 'epoch', 'level', 'msg', 'pid', 'requestId', 'scheme', 'service', 'time', 'walletId'].sort());
      const after = await roles(wallet);
      expect(after).toContain(`${prefix}-api@${epoch + 1}`);
      expect(after).toContain(`${prefix}-signer@${epoch + 1}`);
      expect(after.filter((r) => r.endsWith(`@${epoch}`) && !r.startsWith('recovery-'))).toEqual([]);
      await signs(wallet);

      // The old API share no longer forms a signature with the refreshed signer share.
      const current = (await rows(wallet)).find((r) => r.role === `${prefix}-api`)!;
      await exec('UPDATE key_shares SET epoch = $3, kek_id = $4, iv = $5, ciphertext = $6 WHERE wallet_id = $1 AND role = $2', [wallet.id, `${prefix}-api`, old.epoch, old.kekId, old.iv, old.ciphertext]);
      if (type === 'SOLANA') {
        const refused = await call(service.url, 'POST', `/v1/wallets/${wallet.id}/sign-message`, { message: 'with the old API share' });
        expect(refused.status, JSON.stringify(refused.body)).toBe(500);
      } else {
        // Public check (a signing attempt would abort and retire the current OT setup): the old share's Y₁ is not on the current sharing.
        const keks = fileKekProvider(path.join(dataDir, 'api'), ['api']);
        const vw = { id: wallet.id, type: 'EVM' as const, address: wallet.address, publicKey: wallet.publicKey };
        const [oldShare, newShare] = [old, current].map((r) => openDklsShare(keks, wallet.id, 'dkls-api', r, secp256k1KeyOfWallet(vw)));
        const pk = secp256k1.Point.fromBytes(secp256k1KeyOfWallet(vw));
        const y = (s: typeof oldShare, k: number) => secp256k1.Point.fromBytes(s!.verifyingShares[k]!);
        expect(y(newShare, 0).multiply(2n).subtract(y(newShare, 1)).equals(pk)).toBe(true);
        expect(y(oldShare, 0).multiply(2n).subtract(y(newShare, 1)).equals(pk)).toBe(false);
        oldShare!.wipe();
        newShare!.wipe();
      }
      await exec('UPDATE key_shares SET epoch = $3, kek_id = $4, iv = $5, ciphertext = $6 WHERE wallet_id = $1 AND role = $2', [wallet.id, `${prefix}-api`, current.epoch, current.kekId, current.iv, current.ciphertext]);
      await signs(wallet);
    }, 180_000);

    it("the signer's share lost (sealed under a KEK it no longer has): a run killed after its write, rerun, answers intact; same address, the old signer share is refused", async () => {
      const wallet = wallets[type];
      const old = (await rows(wallet)).find((r) => r.role === `${prefix}-signer`)!;
      await exec('UPDATE key_shares SET kek_id = $3 WHERE wallet_id = $1 AND role = $2', [wallet.id, `${prefix}-signer`, 'file-service-lost']);
      const lostState = await fingerprint(wallet);
      expect(await recover(wallet, 'signer', { key: wrongKey })).toMatchObject({ ok: false, error: { code: 'RECOVERY_KEY_MISMATCH' } });
      expect(await fingerprint(wallet)).toEqual(lostState);

      const killed = await recover(wallet, 'signer', { crashAt: 'after-write:1' });
      expect(killed).toMatchObject({ ok: false, signal: 'SIGKILL' });
      const written = await roles(wallet);
      expect(written).toContain(`${prefix}-signer@${old.epoch + 1}`);

      const rerun = await recover(wallet, 'signer');
      expect(rerun).toEqual({ ok: true, body: { command: 'recover', walletId: wallet.id, type, address: wallet.address, lost: 'signer', outcome: 'intact', epoch: old.epoch + 1 } });
      expect(await roles(wallet)).toEqual(written);
      await signs(wallet);
      await signerRefuses(wallet, old);
    }, 180_000);
  });
});
