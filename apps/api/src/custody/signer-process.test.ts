import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, openDatabase } from '@wallet/db';
import { encodeExecuteBatch, generateKekEntry } from '@wallet/domain';
import { createSignerClient, SignerRefusedError } from '@wallet/signer/client';
import { recoverTransactionAddress, verifyMessage, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredentialSet } from '../../../signer/src/config/credentials.ts';
import { repoRoot } from '../config.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { exited, localServiceEnv, spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';
import { spawnSigner, usedPresignatures } from '../testing/signer-process.ts';
import { signingMatrix, type MatrixWallet } from '../testing/signing-matrix.ts';

const run = promisify(execFile);
const { children, cleanups } = suiteProcesses();
/** The signer's operator cap on native value per EVM transaction, in wei (its own host's limit). */
const EVM_VALUE_CAP = 1_000_000n;


const server = process.env.TEST_DATABASE_URL;
// The service runs on PostgreSQL here so the test can read its database while it runs.
describe.runIf(server)('the signer as its own process, reached over mTLS (PostgreSQL)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-signer-process-'));
  const signerEnv = { APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'info', SIGNER_MAX_NATIVE_VALUE_EVM_WEI: String(EVM_VALUE_CAP) };
  let signer: ChildProcess;
  let service: ServiceProcess;
  let env: Record<string, string>;
  let databaseUrl: string;
  let apiKey = '';
  let projectId = '';
  const call = checkedServiceCalls(() => apiKey);
  const auditRows = async () => {
    const database = await openDatabase({ databaseUrl, migrate: false });
    try {
      return Number((await database.query<{ n: string }>('SELECT count(*)::text AS n FROM audit_log'))[0]!.n);
    } finally {
      await database.close();
    }
  };

  beforeAll(async () => {
    const scratch = await createScratchDatabase(server!, 'signerprocess');
    cleanups.push(scratch.drop);
    databaseUrl = scratch.url;
    signer = await spawnSigner(signerEnv, children);
    env = localServiceEnv(dataDir, { DATABASE_URL: databaseUrl, SIGNER_URL: `unix:${path.join(dataDir, 'signer', 'signer.sock')}` });
    service = await spawnService(env, children);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'signer-process'], { cwd: repoRoot, env });
    ({ apiKey, projectId } = JSON.parse(stdout.trim()) as { apiKey: string; projectId: string });
  }, 120_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("signs on every route and wallet type through the signer, each verified by the chain's SDK (Ed25519 also strictly), each in the signer's log", async () => {
    const logLines = () => readFileSync(path.join(dataDir, 'signer', 'signatures.log'), 'utf8').trim().split('\n').filter(Boolean).length;
    const before = existsSync(path.join(dataDir, 'signer', 'signatures.log')) ? logLines() : 0;
    const wallets = new Map<string, MatrixWallet & { id: string }>();
    for (const type of ['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI']) {
      const wallet = await call(service.url, 'POST', '/v1/wallets', { type, userIdentifier: `matrix-${type}@example.com`, userIdentifierType: 'EMAIL' });
      expect(wallet.status, type).toBe(201);
      wallets.set(type, wallet.body as never);
    }
    const other = await call(service.url, 'POST', '/v1/wallets', { type: 'SOLANA', userIdentifier: 'matrix-other@example.com', userIdentifierType: 'EMAIL' });
    for (const cell of signingMatrix) {
      const wallet = wallets.get(cell.type)!;
      const body = await cell.body(wallet);
      const signed = await call(service.url, 'POST', `/v1/wallets/${wallet.id}/${cell.route}`, body);
      expect(signed.status, `${cell.type} ${cell.route}: ${JSON.stringify(signed.body)}`).toBe(200);
      expect(await cell.verify(wallet, signed.body, body), `${cell.type} ${cell.route}`).toBe(true);
      // The same answer checked against another wallet's key fails: the check can fail.
      const stranger = cell.type === 'SOLANA' ? (other.body as MatrixWallet) : wallets.get(cell.type === 'EVM' ? 'COSMOS' : 'SOLANA')!;
      expect(await cell.verify({ ...stranger, type: cell.type }, signed.body, body).catch(() => false), `${cell.type} ${cell.route} under another key`).toBe(false);
    }
    expect(signingMatrix.map((c) => c.route).filter((r, i, all) => all.indexOf(r) === i)).toHaveLength(5);
    expect(logLines() - before).toBe(signingMatrix.length);
  });

  it('threshold ECDSA (DKLs23): the operator CLI sets the mode, and EVM and COSMOS wallets sign every route 2-of-2 with the signer process, within its value cap', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/custody.ts', 'mode', '--project-id', projectId, '--env', 'development', '--mode', 'threshold'], { cwd: repoRoot, env });
    expect(JSON.parse(stdout.trim())).toEqual({ command: 'mode', projectId, environment: 'development', secp256k1Mode: 'threshold', review: expect.stringMatching(/not externally audited/) });
    const thresholdFile = path.join(dataDir, 'signer', 'threshold.jsonl');
    const records = (kind: string) => (existsSync(thresholdFile) ? readFileSync(thresholdFile, 'utf8').split('\n').filter((l) => l.includes(`"kind":"${kind}"`)).length : 0);
    const usedBefore = usedPresignatures(path.join(dataDir, 'signer')).length;
    const wallets = new Map<string, MatrixWallet & { id: string }>();
    for (const type of ['EVM', 'COSMOS']) {
      const wallet = await call(service.url, 'POST', '/v1/wallets', { type, userIdentifier: `dkls-${type}@example.com`, userIdentifierType: 'EMAIL' });
      expect(wallet.status, type).toBe(201);
      expect(wallet.body.custodyMode).toBe('threshold');
      wallets.set(type, wallet.body as never);
    }
    expect(records('ot-setup')).toBeGreaterThanOrEqual(2);
    const cells = signingMatrix.filter((c) => c.type === 'EVM' || c.type === 'COSMOS');
    for (const cell of cells) {
      const wallet = wallets.get(cell.type)!;
      const body = await cell.body(wallet);
      const signed = await call(service.url, 'POST', `/v1/wallets/${wallet.id}/${cell.route}`, body);
      expect(signed.status, `${cell.type} ${cell.route}: ${JSON.stringify(signed.body)}`).toBe(200);
      expect(await cell.verify(wallet, signed.body, body), `${cell.type} ${cell.route}`).toBe(true);
    }
    // Each signature used one presignature, recorded in the signer's own store before its last message left.
    const used = usedPresignatures(path.join(dataDir, 'signer'));
    expect(used.length - usedBefore).toBe(cells.length);
    expect(new Set(used).size).toBe(used.length);
    const evm = wallets.get('EVM')!;
    const transaction = { transaction: { to: '0x000000000000000000000000000000000000dEaD', value: (EVM_VALUE_CAP + 1n).toString(), chainId: 84532, type: 2, nonce: 0, gasLimit: '21000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000' } };
    const rowsBefore = await auditRows();
    expect(await call(service.url, 'POST', `/v1/wallets/${evm.id}/sign-transaction`, transaction)).toMatchObject({ status: 403, body: { code: 'SIGNER_LIMIT_EXCEEDED' } });
    expect(await auditRows()).toBe(rowsBefore);
  }, 120_000);

  it('answers 503 SIGNER_UNAVAILABLE while the signer is down, writing nothing, and signs again once it is back, without an API restart', async () => {
    const wallet = await call(service.url, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'outage@example.com', userIdentifierType: 'EMAIL' });
    expect(wallet.status).toBe(201);
    signer.kill('SIGTERM');
    await exited(signer);
    const rowsBefore = await auditRows();
    const down = await call(service.url, 'POST', `/v1/wallets/${wallet.body.id}/sign-message`, { message: 'while the signer is away' });
    expect(down).toMatchObject({ status: 503, body: { code: 'SIGNER_UNAVAILABLE' } });
    const noWallet = await call(service.url, 'POST', '/v1/wallets', { type: 'SOLANA', userIdentifier: 'outage@example.com', userIdentifierType: 'EMAIL' });
    expect(noWallet).toMatchObject({ status: 503, body: { code: 'SIGNER_UNAVAILABLE' } });
    expect(await auditRows()).toBe(rowsBefore);
    const health = (await (await fetch(`${service.url}/health`)).json()) as { signer: { reachable: boolean } };
    expect(health.signer.reachable).toBe(false);

    signer = await spawnSigner(signerEnv, children);
    const back = await call(service.url, 'POST', `/v1/wallets/${wallet.body.id}/sign-message`, { message: 'the signer is back' });
    expect(back.status).toBe(200);
    expect(await verifyMessage({ address: wallet.body.address as Hex, message: 'the signer is back', signature: `0x${back.body.signature as string}` })).toBe(true);
    expect(await auditRows()).toBe(rowsBefore + 1);
  });

  it("refuses an EVM transaction above the signer's own value cap, though no policy limits it", async () => {
    const wallet = await call(service.url, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'cap@example.com', userIdentifierType: 'EMAIL' });
    const transaction = (value: bigint) => ({ transaction: { to: '0x000000000000000000000000000000000000dEaD', value: value.toString(), chainId: 84532, type: 2, nonce: 0, gasLimit: '21000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000' } });
    const within = await call(service.url, 'POST', `/v1/wallets/${wallet.body.id}/sign-transaction`, transaction(EVM_VALUE_CAP));
    expect(within.status).toBe(200);
    expect(await recoverTransactionAddress({ serializedTransaction: within.body.signedTransaction as never })).toBe(wallet.body.address);
    const rowsBefore = await auditRows();
    const over = await call(service.url, 'POST', `/v1/wallets/${wallet.body.id}/sign-transaction`, transaction(EVM_VALUE_CAP + 1n));
    expect(over).toMatchObject({ status: 403, body: { code: 'SIGNER_LIMIT_EXCEEDED', limit: 'nativeValueCap' } });
    // A transaction to the wallet itself with value 0 whose delegated executeBatch sends the value on: the calls count.
    const batch = encodeExecuteBatch([
      { to: '0x000000000000000000000000000000000000dEaD', value: EVM_VALUE_CAP, data: '0x' },
      { to: '0x000000000000000000000000000000000000bEEF', value: 1n, data: '0x' },
    ]);
    const throughDelegation = await call(service.url, 'POST', `/v1/wallets/${wallet.body.id}/sign-transaction`, {
      transaction: { ...transaction(0n).transaction, to: wallet.body.address, data: batch, gasLimit: '200000' },
    });
    expect(throughDelegation).toMatchObject({ status: 403, body: { code: 'SIGNER_LIMIT_EXCEEDED', limit: 'nativeValueCap' } });
    expect(await auditRows()).toBe(rowsBefore);
  });

  it("refuses callers without the signer's client certificate", async () => {
    const socketPath = path.join(dataDir, 'signer', 'signer.sock');
    const ca = readFileSync(path.join(dataDir, 'signer', 'tls', 'ca.pem'), 'utf8');
    const other = issueCredentialSet().clients['wallet-api']!;
    const attempt = async (cert?: { cert: string; key: string }) => {
      const client = createSignerClient({ url: `unix:${socketPath}`, tls: { ca, cert: cert?.cert ?? '', key: cert?.key ?? '' }, timeoutMs: 5000 });
      try {
        await client.call('vault.createWalletKey', {});
        return 'answered 200';
      } catch (error) {
        // A certificate of another CA, or none: the handshake fails and nothing is answered.
        return error instanceof SignerRefusedError ? `answered ${error.status}` : `refused: ${(error as Error).message}`;
      } finally {
        await client.close();
      }
    };
    expect(await attempt()).toMatch(/^refused/);
    expect(await attempt(other)).toMatch(/^refused/);
    // The same request with the API's own certificate is answered (so the refusals above are the certificates').
    const own = { cert: readFileSync(path.join(dataDir, 'signer', 'tls', 'api.pem'), 'utf8'), key: readFileSync(path.join(dataDir, 'signer', 'tls', 'api-key.pem'), 'utf8') };
    expect(await attempt(own)).toBe('answered 400');
  });

  it("refuses to start the API with the signer's KEKs", async () => {
    const withShareKeks = spawnService({ ...env, USER_SHARE_KEKS: generateKekEntry('u1'), SERVICE_SHARE_KEKS: generateKekEntry('s1') }, children);
    await expect(withShareKeks).rejects.toThrow(/USER_SHARE_KEKS: opens wallet key shares and belongs to the signer process only/);
    // The signer's service KEK given to the API as its own (under another id): it opens a stored share.
    const signerKeks = JSON.parse(readFileSync(path.join(dataDir, 'signer', 'keks.json'), 'utf8')) as { keys: { role: string; key: string }[] };
    const serviceKek = signerKeks.keys.find((k) => k.role === 'service')!.key;
    const copied = spawnService({ ...env, API_KEKS: `copied:${serviceKek}` }, children);
    await expect(copied).rejects.toThrow(/API KEK copied opens the (service|frost-signer|dkls-signer) share of wallet/);
  });

  it("verify-log: the signer's chained log matches the audit log, and a log line edited afterwards is found", async () => {
    const verifyLog = () =>
      run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/custody.ts', 'verify-log'], { cwd: repoRoot, env }).then(
        ({ stdout }) => ({ code: 0, report: JSON.parse(stdout.trim()) as Record<string, any> }),
        (error: { code: number; stdout: string }) => ({ code: error.code, report: JSON.parse(error.stdout.trim()) as Record<string, any> }),
      );
    const clean = await verifyLog();
    expect(clean.code).toBe(0);
    expect(clean.report).toMatchObject({ ok: true, chain: { ok: true }, missingInAudit: { count: 0 }, missingInLog: { count: 0 } });
    expect(clean.report.matched).toBeGreaterThanOrEqual(7);
    expect(clean.report.matched).toBe(clean.report.walletSignatures);

    // Someone rewrites what a logged signature was for: the chain breaks at that line.
    const logFile = path.join(dataDir, 'signer', 'signatures.log');
    const lines = readFileSync(logFile, 'utf8').split('\n');
    const entry = JSON.parse(lines[1]!) as { seq: number; digest: string };
    lines[1] = JSON.stringify({ ...entry, digest: 'f'.repeat(64) });
    writeFileSync(logFile, lines.join('\n'));
    const broken = await verifyLog();
    expect(broken.code).toBe(1);
    expect(broken.report).toMatchObject({ ok: false, chain: { ok: false, firstBadSeq: entry.seq } });
  });
});

describe('npm start supervises its signer', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-signer-supervised-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts it beside the API and starts it again when it dies; signing recovers by itself', async () => {
    const stellarMessage = signingMatrix.find((c) => c.type === 'STELLAR' && c.route === 'sign-message')!;
    const service = await spawnService(localServiceEnv(dataDir, {}), children);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'supervised'], { cwd: repoRoot, env: localServiceEnv(dataDir, {}) });
    const key = (JSON.parse(stdout.trim()) as { apiKey: string }).apiKey;
    const call = checkedServiceCalls(() => key);
    const wallet = await call(service.url, 'POST', '/v1/wallets', { type: 'STELLAR', userIdentifier: 'supervised@example.com', userIdentifierType: 'EMAIL' });
    expect(wallet.status).toBe(201);
    const pid = Number(readFileSync(path.join(dataDir, 'signer', 'signer.lock'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    let answer: { status: number; body: Record<string, unknown> } = { status: 0, body: {} };
    for (let i = 0; i < 100 && answer.status !== 200; i++) {
      answer = await call(service.url, 'POST', `/v1/wallets/${wallet.body.id}/sign-message`, await stellarMessage.body(wallet.body as never));
      if (answer.status !== 200) {
        expect(answer).toMatchObject({ status: 503, body: { code: 'SIGNER_UNAVAILABLE' } });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(answer.status).toBe(200);
    expect(await stellarMessage.verify(wallet.body as never, answer.body, {})).toBe(true);
    expect(Number(readFileSync(path.join(dataDir, 'signer', 'signer.lock'), 'utf8'))).not.toBe(pid);
    service.child.kill('SIGTERM');
    await exited(service.child);
  });
});
