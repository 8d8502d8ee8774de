/**
 * A signer killed in the middle of a FROST signature (SIGNER_CRASH_AT, a real SIGKILL of the real
 * signer process): once after it made its nonces and signature share, before its log and its answer;
 * once after the signature is in its log, before the answer. Each time the request answers 503
 * SIGNER_UNAVAILABLE and nothing is written; the signer's data directory holds no nonce or session
 * state; the signer restarted, the same request retried completes with commitments never used before
 * on both sides, and the signature verifies (@noble/curves strict, node:crypto, the chain's SDK).
 *
 * What crosses between the API and the signer is read off the wire: the API talks to a relay that
 * ends TLS with the signer's own (local, generated) certificate and pipes the plaintext, byte for
 * byte, to the signer over its own mTLS connection, recording the JSON payloads of the RPC frames.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519.js';
import { address as solanaAddress, getAddressEncoder, getPublicKeyFromAddress, verifySignature, type SignatureBytes } from '@solana/kit';
import { createScratchDatabase, openDatabase } from '@wallet/db';
import { decodeVaultValue } from '@wallet/domain';
import { ready, type SigningCommitments } from '@wallet/frost-ed25519';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { computeBindingFactors, computeGroupCommitment } from '../../../../packages/frost-ed25519/src/frost.ts';
import { repoRoot } from '../config.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { localServiceEnv, spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';
import { productionSigner, spawnSigner } from '../testing/signer-process.ts';
import { createFrameReader, decodePayload, RPC_ALPN } from '@wallet/signer/client';

const run = promisify(execFile);
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const { children, cleanups } = suiteProcesses();
const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.signalCode ?? child.exitCode) : child.once('exit', (code, signal) => resolve(signal ?? code))));

interface Exchange {
  request: Record<string, any>;
  answer?: Record<string, any>;
}

/** The relay (see the module comment); `frostSigns` are the vault.frost.sign exchanges it saw, in order. */
function wireTap(listenPath: string, signerSocket: string, tlsDir: string) {
  const file = (name: string) => readFileSync(path.join(tlsDir, name));
  const exchanges = new Map<string, Exchange>();
  let connections = 0;
  const server = tls.createServer({ key: file('signer-key.pem'), cert: file('signer.pem'), ALPNProtocols: [RPC_ALPN], minVersion: 'TLSv1.3' }, (down) => {
    const connection = ++connections;
    const up = tls.connect({ path: signerSocket, ca: file('ca.pem'), cert: file('api.pem'), key: file('api-key.pem'), servername: 'wallet-signer', ALPNProtocols: [RPC_ALPN] });
    const json = (body: Buffer) => {
      try {
        return decodeVaultValue(decodePayload(body)) as Record<string, any>;
      } catch {
        return undefined;
      }
    };
    const unexpected = () => {
      throw new Error('a frame above the relay\'s limit');
    };
    down.on(
      'data',
      createFrameReader(1 << 24, {
        frame(id, body) {
          const request = json(body);
          if (request?.params?.commitments && request.params.message) exchanges.set(`${connection}:${id}`, { request: request.params });
        },
        oversize: unexpected,
      }),
    );
    up.on(
      'data',
      createFrameReader(1 << 24, {
        frame(id, body) {
          const exchange = exchanges.get(`${connection}:${id}`);
          if (exchange) exchange.answer = json(body)?.result;
        },
        oversize: unexpected,
      }),
    );
    down.pipe(up);
    up.pipe(down);
    // Either side gone is the connection gone, as it would be without the relay.
    const close = () => {
      down.destroy();
      up.destroy();
    };
    for (const socket of [down, up]) {
      socket.on('close', close);
      socket.on('error', close);
    }
  });
  server.listen(listenPath);
  return { frostSigns: () => [...exchanges.values()], close: () => new Promise((resolve) => server.close(resolve)) };
}

const server = process.env.TEST_DATABASE_URL;
describe.runIf(server)('a signer killed in the middle of a FROST signature (PostgreSQL)', () => {
  let dataDir = '';
  let signerDir = '';
  let tap: ReturnType<typeof wireTap>;
  let signer: ChildProcess;
  let service: ServiceProcess;
  let databaseUrl: string;
  let apiKey = '';
  let wallet: { id: string; address: string; publicKey: string };
  const call = checkedServiceCalls(() => apiKey);
  const startSigner = (crashAt?: string) => spawnSigner({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...(crashAt ? { SIGNER_CRASH_AT: crashAt } : {}) }, children);
  const MESSAGE = 'signed while the signer dies';
  const sign = (key: string) => call(service.url, 'POST', `/v1/wallets/${wallet.id}/sign-message`, { message: MESSAGE }, key);
  const logLines = () =>
    readFileSync(path.join(signerDir, 'signatures.log'), 'utf8')
      .split('\n')
      .filter((line) => line.trim()) // a running signer's journals end in padding
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const auditRows = async () => {
    const database = await openDatabase({ databaseUrl, migrate: false });
    try {
      return await database.query<{ action: string }>('SELECT action FROM audit_log WHERE wallet_id = $1 ORDER BY id', [wallet.id]);
    } finally {
      await database.close();
    }
  };

  /** Every file of the signer's data directory, by path relative to it. */
  const signerFiles = (dir = signerDir): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      const stat = statSync(full);
      return stat.isDirectory() ? signerFiles(full) : [path.relative(signerDir, full)];
    });

  /**
   * What a killed signer leaves on disk holds no nonce or session state: the files it always has, a
   * signature log of the documented lines, and none of the commitments of the signature it was making.
   */
  function assertNothingReusableOnDisk(killed: SigningCommitments) {
    const tlsFiles = ['api-key.pem', 'api.pem', 'ca.pem', 'signer-key.pem', 'signer.pem'].map((f) => `tls/${f}`);
    expect(signerFiles().sort()).toEqual(['epochs.jsonl', 'keks.json', 'signatures.log', 'signer.lock', 'signer.sock', 'threshold.jsonl', ...tlsFiles]);
    // Threshold ECDSA's records: OT setup ids and used presignature ids only (no wallet here has one).
    expect(readFileSync(path.join(signerDir, 'threshold.jsonl'), 'utf8').trim()).toBe('');
    for (const line of logLines()) expect(Object.keys(line).sort()).toEqual(['action', 'digest', 'hash', 'prev', 'requestId', 'seq', 'time', 'walletId']);
    for (const line of readFileSync(path.join(signerDir, 'epochs.jsonl'), 'utf8').split('\n').filter((l) => l.trim())) {
      expect(Object.keys(JSON.parse(line) as object).sort()).toEqual(['epoch', 'time', 'walletId']);
    }
    const everything = signerFiles()
      .filter((f) => f !== 'signer.sock')
      .map((f) => readFileSync(path.join(signerDir, f)))
      .map((bytes) => `${bytes.toString('hex')}\n${bytes.toString('utf8')}`)
      .join('\n');
    for (const point of [killed.hiding, killed.binding]) {
      const encodings = [Buffer.from(point).toString('hex'), Buffer.from(point).toString('base64')];
      for (const encoding of encodings) expect(everything.includes(encoding)).toBe(false);
    }
  }

  /** The answer's signature verifies strictly under the wallet's key, and its R is the one the observed commitments make. */
  async function verifiedFromObserved(signature: string, exchange: Exchange) {
    const bytes = new TextEncoder().encode(MESSAGE);
    const sig = Buffer.from(signature, 'hex');
    const publicKey = new Uint8Array(getAddressEncoder().encode(solanaAddress(wallet.address)));
    const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: 'der', type: 'spki' });
    expect(ed25519.verify(sig, bytes, publicKey, { zip215: false })).toBe(true);
    expect(nodeVerify(null, bytes, key, sig)).toBe(true);
    expect(await verifySignature(await getPublicKeyFromAddress(solanaAddress(wallet.address)), sig as unknown as SignatureBytes, bytes)).toBe(true);
    const list = [exchange.request.commitments as SigningCommitments, exchange.answer!.commitments as SigningCommitments].sort((a, b) => a.identifier - b.identifier);
    expect(Buffer.from(computeGroupCommitment(list, computeBindingFactors(publicKey, list, bytes))).equals(sig.subarray(0, 32))).toBe(true);
  }
  const hex = (c: SigningCommitments) => `${Buffer.from(c.hiding).toString('hex')}:${Buffer.from(c.binding).toString('hex')}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-signer-kill-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    signerDir = path.join(dataDir, 'signer');
    const tapSocket = path.join(dataDir, 'tap.sock');
    await ready();
    const scratch = await createScratchDatabase(server!, 'signerkill');
    cleanups.push(scratch.drop);
    databaseUrl = scratch.url;
    signer = await startSigner();
    tap = wireTap(tapSocket, path.join(signerDir, 'signer.sock'), path.join(signerDir, 'tls'));
    cleanups.push(() => tap.close());
    const env = localServiceEnv(dataDir, { DATABASE_URL: databaseUrl, SIGNER_URL: `unix:${tapSocket}` });
    service = await spawnService(env, children);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'signer-kill'], { cwd: repoRoot, env });
    apiKey = (JSON.parse(stdout.trim()) as { apiKey: string }).apiKey;
    const created = await call(service.url, 'POST', '/v1/wallets', { type: 'SOLANA', userIdentifier: 'signer-kill@example.com', userIdentifierType: 'EMAIL' });
    expect(created.status).toBe(201);
    wallet = created.body as typeof wallet;
    signer.kill('SIGTERM');
    await exited(signer);
  }, 120_000);
  // A test that failed midway leaves its signer running: the next one starts its own.
  afterEach(async () => {
    signer.kill('SIGTERM');
    await exited(signer);
  });

  it('SIGNER_CRASH_AT is refused outside local mode', async () => {
    const { signerEnv } = productionSigner(path.join(dataDir, 'production'));
    await expect(spawnSigner({ ...signerEnv, SIGNER_CRASH_AT: 'frost-respond' }, children)).rejects.toThrow(/SIGNER_CRASH_AT is a fault-injection switch for tests; refusing to start production with it/);
    await expect(startSigner('frost-nowhere')).rejects.toThrow(/SIGNER_CRASH_AT must be one of frost-respond, frost-logged/);
  });

  const signatures: string[] = [];
  const seen: string[] = [];

  it.each([
    ['frost-respond', 'its nonces and signature share made, before its log and its answer', 0],
    ['frost-logged', 'the signature in its log, before the answer', 1],
  ] as const)('killed at %s (%s): 503 SIGNER_UNAVAILABLE, nothing reusable left; retried after a restart, it signs with fresh nonces', async (point, _what, logged) => {
    signer = await startSigner(point);
    const [linesBefore, auditBefore, exchangesBefore] = [logLines().length, (await auditRows()).length, tap.frostSigns().length];

    const killed = await sign(`kill-${point}`);
    expect(killed).toMatchObject({ status: 503, body: { code: 'SIGNER_UNAVAILABLE' } });
    expect(await exited(signer)).toBe('SIGKILL');
    // The request reached the signer and no answer left it; nothing was written on the API's side.
    const attempt = tap.frostSigns().slice(exchangesBefore);
    expect(attempt).toHaveLength(1);
    expect(attempt[0]!.answer).toBeUndefined();
    expect((await auditRows()).length).toBe(auditBefore);
    // frost-logged: the log holds a signature the caller never received (never the reverse).
    const lines = logLines();
    expect(lines.length - linesBefore).toBe(logged);
    if (logged) expect(lines.at(-1)).toMatchObject({ walletId: wallet.id, action: 'wallet.sign.sign-message' });
    assertNothingReusableOnDisk(attempt[0]!.request.commitments as SigningCommitments);

    // The signer back (without the hook): the same request, retried, completes.
    signer = await startSigner();
    const retried = await sign(`kill-${point}`);
    expect(retried.status).toBe(200);
    const exchange = tap.frostSigns().slice(exchangesBefore + 1);
    expect(exchange).toHaveLength(1);
    await verifiedFromObserved(retried.body.signature as string, exchange[0]!);
    expect((await auditRows()).length).toBe(auditBefore + 1);
    const after = logLines();
    expect(after.length - lines.length).toBe(1);
    // The logged signature of the killed attempt is of the same message: one digest, two entries.
    if (logged) expect(after.at(-1)!.digest).toBe(lines.at(-1)!.digest);

    // Fresh on both sides: the API's commitments differ from the killed attempt's and from every earlier
    // one, the signer's from every earlier answer; the same message under the same key gets another R.
    seen.push(hex(attempt[0]!.request.commitments as SigningCommitments));
    for (const c of [exchange[0]!.request.commitments, exchange[0]!.answer!.commitments] as SigningCommitments[]) {
      expect(seen).not.toContain(hex(c));
      seen.push(hex(c));
    }
    for (const earlier of signatures) expect(earlier.slice(0, 64)).not.toBe((retried.body.signature as string).slice(0, 64));
    signatures.push(retried.body.signature as string);
  }, 90_000);
});
