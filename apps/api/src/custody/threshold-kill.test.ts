/**
 * Threshold ECDSA (DKLs23) signatures interrupted by a real SIGKILL between their exchanges: the
 * signer killed after making its presignature, after recording it used, after logging the signature
 * (SIGNER_CRASH_AT); the API killed after its presignature and after the signer's final message
 * (CUSTODY_CRASH_AT). Each interrupted request writes no audit row; the request retried once both run
 * signs with a new presignature, verified by viem; the signer's store never records one id twice, and
 * sealed shares replayed from the API's database make new presignatures, never an old one.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, openDatabase } from '@wallet/db';
import { DKLS_METHODS, decodeVaultValue, encodeVaultValue, fileKekProvider, openDklsShare, secp256k1KeyOfWallet, type EncryptedShare } from '@wallet/domain';
import { presignParty } from '@wallet/threshold-ecdsa';
import { createSignerClient, signerClientSettings } from '@wallet/signer/client';
import { verifyMessage, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { exited, localServiceEnv, spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';
import { spawnSigner, usedPresignatures } from '../testing/signer-process.ts';

const run = promisify(execFile);
const { children, cleanups } = suiteProcesses();
const server = process.env.TEST_DATABASE_URL;

describe.runIf(server)('threshold ECDSA signatures killed between their exchanges (PostgreSQL)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-dkls-kill-'));
  const signerDir = path.join(dataDir, 'signer');
  let signer: ChildProcess;
  let service: ServiceProcess;
  let env: Record<string, string>;
  let databaseUrl = '';
  let apiKey = '';
  let wallet: { id: string; address: Hex; publicKey: string };
  const call = checkedServiceCalls(() => apiKey);
  const startSigner = (crashAt?: string) => spawnSigner({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...(crashAt ? { SIGNER_CRASH_AT: crashAt } : {}) }, children);
  const startService = (crashAt?: string) => spawnService({ ...env, ...(crashAt ? { CUSTODY_CRASH_AT: crashAt } : {}) }, children);
  const stop = async (child: ChildProcess) => {
    child.kill('SIGTERM');
    await exited(child);
  };
  const sign = (message: string) => call(service.url, 'POST', `/v1/wallets/${wallet.id}/sign-message`, { message });
  const usedIds = () => usedPresignatures(signerDir);
  const signatureAudits = async () => {
    const database = await openDatabase({ databaseUrl, migrate: false });
    try {
      return Number((await database.query<{ n: string }>(`SELECT count(*)::text AS n FROM audit_log WHERE wallet_id = $1 AND action LIKE 'wallet.sign.%'`, [wallet.id]))[0]!.n);
    } finally {
      await database.close();
    }
  };

  beforeAll(async () => {
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const scratch = await createScratchDatabase(server!, 'dklskill');
    cleanups.push(scratch.drop);
    databaseUrl = scratch.url;
    signer = await startSigner();
    env = localServiceEnv(dataDir, { DATABASE_URL: databaseUrl, SIGNER_URL: `unix:${path.join(signerDir, 'signer.sock')}` });
    service = await startService();
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'dkls-kill'], { cwd: repoRoot, env });
    const issued = JSON.parse(stdout.trim()) as { apiKey: string; projectId: string };
    apiKey = issued.apiKey;
    await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/custody.ts', 'mode', '--project-id', issued.projectId, '--env', 'development', '--mode', 'threshold'], { cwd: repoRoot, env });
    const created = await call(service.url, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'dkls-kill@example.com', userIdentifierType: 'EMAIL' });
    expect(created.status).toBe(201);
    expect(created.body.custodyMode).toBe('threshold');
    wallet = created.body as typeof wallet;
  }, 120_000);
  afterAll(async () => {
    await stop(signer);
    await stop(service.child);
  });

  it.each(['dkls-presigned', 'dkls-logged'])('the signer killed at %s: 503 and no audit row; restarted, the retry signs with a new presignature', async (point) => {
    await stop(signer);
    signer = await startSigner(point);
    const audits = await signatureAudits();
    const usedBefore = usedIds();
    const refused = await sign(`killed at ${point}`);
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('SIGNER_UNAVAILABLE');
    expect(await exited(signer)).toBe('SIGKILL');
    expect(await signatureAudits()).toBe(audits);
    // At `dkls-logged` the signer had recorded the presignature's use (its signature's log line) before it died.
    expect(usedIds().length - usedBefore.length).toBe(point === 'dkls-presigned' ? 0 : 1);

    signer = await startSigner();
    const message = `retried after ${point}`;
    const signed = await sign(message);
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(await verifyMessage({ address: wallet.address, message, signature: `0x${signed.body.signature}` })).toBe(true);
    expect(await signatureAudits()).toBe(audits + 1);
    const used = usedIds();
    expect(new Set(used).size).toBe(used.length);
  }, 60_000);

  it.each(['dkls-presigned:1', 'dkls-final:1'])('the API killed at %s: no audit row; restarted, the retry signs with a new presignature', async (point) => {
    await stop(service.child);
    service = await startService(point);
    const audits = await signatureAudits();
    await sign(`API killed at ${point}`).then(
      () => expect.fail('the API answered although it was killed'),
      (error: unknown) => expect(error).toBeInstanceOf(Error),
    );
    expect(await exited(service.child)).toBe('SIGKILL');
    expect(await signatureAudits()).toBe(audits);

    service = await startService();
    const message = `retried after the API died at ${point}`;
    const signed = await sign(message);
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(await verifyMessage({ address: wallet.address, message, signature: `0x${signed.body.signature}` })).toBe(true);
    const used = usedIds();
    expect(new Set(used).size).toBe(used.length);
  }, 60_000);

  it("replaying the API's stored state (the sealed share and the same first message) makes the signer start a new presignature each time", async () => {
    const database = await openDatabase({ databaseUrl, migrate: false });
    const stored: Record<string, EncryptedShare> = {};
    try {
      const rows = await database.query<{ role: string; epoch: number; kek_id: string; iv: Uint8Array; ciphertext: Uint8Array }>(`SELECT role, epoch, kek_id, iv, ciphertext FROM key_shares WHERE wallet_id = $1 AND role LIKE 'dkls-%'`, [wallet.id]);
      for (const row of rows) stored[row.role] = { role: row.role as EncryptedShare['role'], epoch: Number(row.epoch), kekId: row.kek_id, iv: new Uint8Array(row.iv), ciphertext: new Uint8Array(row.ciphertext) };
    } finally {
      await database.close();
    }
    const vaultWallet = { id: wallet.id, type: 'EVM' as const, scheme: 'DKLS' as const, address: wallet.address, publicKey: wallet.publicKey };
    const apiShare = openDklsShare(fileKekProvider(path.join(dataDir, 'api'), ['api']), wallet.id, 'dkls-api', stored['dkls-api']!, secp256k1KeyOfWallet(vaultWallet));
    // The API's first message of a signature, sent twice with the same sealed signer share.
    const hello = presignParty(apiShare).first();
    apiShare.wipe();
    const settings = signerClientSettings({ APP_ENV: 'local', SIGNER_URL: `unix:${path.join(signerDir, 'signer.sock')}` }, dataDir);
    const client = createSignerClient({ url: settings.url, tls: settings.tls, timeoutMs: 10_000 });
    try {
      const start = async () => decodeVaultValue(await client.call(DKLS_METHODS.signStart, encodeVaultValue({ wallet: vaultWallet, share: stored['dkls-signer'], messages: [hello] }))) as { sessionId: string; messages: Uint8Array[] };
      const [first, second] = [await start(), await start()];
      expect(first.sessionId).not.toBe(second.sessionId);
      // The signer's own hello (its fresh nonce, and so the session id and the presignature) differs each time.
      expect(Buffer.from(first.messages[0]!).equals(Buffer.from(second.messages[0]!))).toBe(false);
    } finally {
      await client.close();
    }
    // The abandoned sessions used nothing: a signature through the API still signs, with a new presignature.
    const signed = await sign('after the replay');
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const used = usedIds();
    expect(new Set(used).size).toBe(used.length);
  }, 60_000);
});
