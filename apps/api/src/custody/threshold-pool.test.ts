/**
 * The threshold ECDSA presignature pool: through the service (the signer's handlers in this process),
 * a signature with a pooled presignature takes one exchange and verifies; each is used once, also when
 * the API replays the final exchange; the bounds hold; after a share refresh or an OT renewal the
 * pooled presignatures of the old shares are refused by the signer and the API signs on demand. Then
 * with a real signer process: a restart empties its side and signing still works.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { testDatabaseKinds } from '@wallet/db';
import {
  API_KEK_ROLES,
  createThresholdKeyVault,
  decodeVaultValue,
  deriveAddress,
  dklsShareSetupId,
  DKLS_METHODS,
  encodeVaultValue,
  fileKekProvider,
  formatPublicKey,
  presignPoolOf,
  refreshWalletShares,
  resolveRecoveryPublicKey,
  secp256k1KeyOfWallet,
  type EncryptedShare,
  type KeyVault,
  type WalletSignResult,
} from '@wallet/domain';
import { createSignerClient, signerClientSettings } from '@wallet/signer/client';
import { hashMessage, verifyMessage, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signer as benchSigner } from '../../bench/signer.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { suiteProcesses } from '../testing/service-process.ts';
import { spawnSigner, usedPresignatures } from '../testing/signer-process.ts';
import { createApiKeyVault, createVaultCall, type SignerCaller } from './remote-vault.ts';

type Wallet = { id: string; type: 'EVM'; address: Hex; publicKey: string };
const vaultWallet = (w: Wallet) => ({ id: w.id, type: 'EVM' as const, scheme: 'DKLS' as const, address: w.address, publicKey: w.publicKey });

/** Records the methods (and params) the API sends to the signer, passing every call through. */
function recording(inner: SignerCaller) {
  const calls: Array<{ method: string; params: unknown }> = [];
  return { calls, caller: { call: (method: string, params: unknown, requestId?: string) => (calls.push({ method, params }), inner.call(method, params, requestId)) } as SignerCaller };
}

/** What the bench's direct vault call signs (a vault test, outside the service's signing pipeline). */
const BENCH_MESSAGE = 'benchmark message: sign me';
const hexOf = (response: Record<string, unknown>) => `0x${String(response.signature).replace(/^0x/, '')}` as Hex;

async function fill(vault: KeyVault, walletId: string, want: number) {
  const pool = presignPoolOf(vault)!;
  for (let i = 0; i < 10 && pool.size(walletId) < want; i++) await pool.topUp();
  expect(pool.size(walletId)).toBe(want);
}

describe.each(testDatabaseKinds)('threshold ECDSA presignature pool through the service on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let wallet: Wallet;
  let tamper = false;
  const methods: string[] = [];
  const finishes: unknown[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind, {
      signerTamper: (method, result) => {
        if (method !== DKLS_METHODS.step || !tamper) return result;
        tamper = false;
        const answer = decodeVaultValue(result) as { messages: Uint8Array[] };
        answer.messages[0]![answer.messages[0]!.length - 1]! ^= 1;
        return encodeVaultValue(answer);
      },
    });
    // Every call the vault makes, recorded and passed on (the harness's vault calls app.signer.call).
    const inner = app.signer!.call.bind(app.signer);
    app.signer!.call = (method: string, params: unknown, requestId?: string) => {
      methods.push(method);
      if (method === DKLS_METHODS.signFinish) finishes.push(params);
      return inner(method, params, requestId);
    };
    const issued = await app.createKey();
    key = issued.apiKey;
    await app.services.custodyMode.set({ projectId: issued.projectId, environment: 'development' }, 'threshold');
    wallet = (await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: `pool-${kind}`, userIdentifierType: 'CUSTOM_ID' } })).body;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const sign = async (message: string) => {
    methods.length = 0;
    const response = await app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key, body: { message } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(await verifyMessage({ address: wallet.address, message, signature: `0x${response.body.signature}` })).toBe(true);
    return response.body.signature as string;
  };
  const dklsMethods = () => methods.filter((m) => m.startsWith('vault.dkls.'));
  const shares = async () => (await app.services.stores.wallets.findShares(wallet.id)) as EncryptedShare[];
  const pool = () => presignPoolOf(app.vault)!;

  it('a wallet that signed gets a bounded pool; a pooled signature takes one exchange (signFinish), verifies, and its presignature is used once, also when the API replays the finish', async () => {
    await sign('makes the wallet active');
    expect(dklsMethods()).toEqual([DKLS_METHODS.signStart, DKLS_METHODS.step, DKLS_METHODS.signFinish]);
    await fill(app.vault, wallet.id, 4);
    // At its bound: further top-ups start nothing.
    methods.length = 0;
    expect(await pool().topUp()).toBe(false);
    expect(dklsMethods()).toEqual([]);

    const message = 'signed with a pooled presignature';
    const signature = await sign(message);
    expect(dklsMethods()).toEqual([DKLS_METHODS.signFinish]);
    const compact = Buffer.from(signature.slice(0, 128), 'hex');
    expect(secp256k1.verify(compact, Buffer.from(hashMessage(message).slice(2), 'hex'), secp256k1KeyOfWallet(wallet), { prehash: false, lowS: true })).toBe(true);
    expect(pool().size(wallet.id)).toBe(3);

    const used = app.signer!.threshold as unknown as { used: ReadonlySet<string> };
    const usedBefore = used.used.size;
    await expect(app.signer!.call(DKLS_METHODS.signFinish, finishes.at(-1))).rejects.toMatchObject({ status: 409 });
    expect(used.used.size).toBe(usedBefore);
  }, 60_000);

  it("the signer's own bound: 4 per wallet, the oldest making room, so a fifth pooled presignature leaves one the API holds unknown there, and that signature is made on demand", async () => {
    const keks = fileKekProvider(path.join(app.dataDir, 'api'), API_KEK_ROLES);
    const vault = createThresholdKeyVault({ remote: {} as KeyVault, call: createVaultCall(app.signer!), keks, recovery: () => { throw new Error('unused'); }, presign: { pool: { perWallet: 5 } } });
    const five = presignPoolOf(vault)!;
    try {
      const stored = await shares();
      const apiShare = stored.find((s) => s.role === 'dkls-api')!;
      five.noteSigned(vaultWallet(wallet), apiShare, stored.find((s) => s.role === 'dkls-signer')!, dklsShareSetupId(apiShare)!);
      await fill(vault, wallet.id, 5);
      const exchanges: number[] = [];
      for (let i = 0; i < 5; i++) {
        methods.length = 0;
        const { response } = (await benchSigner(vault, { wallet: vaultWallet(wallet), shares: stored })()) as WalletSignResult;
        expect(await verifyMessage({ address: wallet.address, message: BENCH_MESSAGE, signature: hexOf(response) })).toBe(true);
        exchanges.push(dklsMethods().length);
      }
      expect(exchanges.sort()).toEqual([1, 1, 1, 1, 4]);
    } finally {
      await five.close();
    }
  }, 60_000);

  it('ages out: presignatures older than maxAgeMs are dropped and never used', async () => {
    let now = Date.now();
    const keks = fileKekProvider(path.join(app.dataDir, 'api'), API_KEK_ROLES);
    const vault = createThresholdKeyVault({ remote: {} as KeyVault, call: createVaultCall(app.signer!), keks, recovery: () => { throw new Error('unused'); }, presign: { pool: { perWallet: 1, maxAgeMs: 60_000, now: () => now } } });
    const aged = presignPoolOf(vault)!;
    try {
      const stored = await shares();
      const apiShare = stored.find((s) => s.role === 'dkls-api')!;
      aged.noteSigned(vaultWallet(wallet), apiShare, stored.find((s) => s.role === 'dkls-signer')!, dklsShareSetupId(apiShare)!);
      await aged.topUp();
      expect(aged.size(wallet.id)).toBe(1);
      now += 60_000;
      expect(aged.take(wallet.id, apiShare.epoch, dklsShareSetupId(apiShare)!)).toBeNull();
      expect(aged.size(wallet.id)).toBe(0);
    } finally {
      await aged.close();
    }
  });

  it('after a share refresh, and after an OT renewal, the pooled presignatures of the old shares are refused by the signer and the API signs on demand', async () => {
    const keks = fileKekProvider(path.join(app.dataDir, 'api'), API_KEK_ROLES);
    const deps = { store: app.services.stores.keyMaintenance, call: createVaultCall(app.signer!), keks, recovery: () => resolveRecoveryPublicKey({ appEnv: 'local', file: undefined, localDir: path.join(app.dataDir, 'recovery') }) };
    /** A pooled presignature of the current shares, its final exchange sent straight to the signer. */
    const drain = async () => {
      const current = (await shares()).find((s) => s.role === 'dkls-api')!;
      for (let entry = pool().take(wallet.id, current.epoch, dklsShareSetupId(current)!); entry; entry = pool().take(wallet.id, current.epoch, dklsShareSetupId(current)!)) entry.presignature.discard();
    };
    const stalePooled = async () => {
      // Fresh ones: those the API held before may have made room for others in the signer.
      await drain();
      await fill(app.vault, wallet.id, 4);
      const apiShare = (await shares()).find((s) => s.role === 'dkls-api')!;
      const entry = pool().take(wallet.id, apiShare.epoch, dklsShareSetupId(apiShare)!)!;
      const message = 'old shares';
      const digest = new Uint8Array(Buffer.from(hashMessage(message).slice(2), 'hex'));
      const pending = entry.presignature.prepareFinalMessage(digest);
      return () => app.signer!.call(DKLS_METHODS.signFinish, encodeVaultValue({ sessionId: entry.sessionId, wallet: vaultWallet(wallet), operation: 'message', input: { message }, requestId: null, action: 'wallet.sign.sign-message', digest, message: pending.message }));
    };

    await sign('active');
    const afterRefresh = await stalePooled();
    expect(await refreshWalletShares(deps)).toMatchObject({ done: 1, failed: 0 });
    await expect(afterRefresh()).rejects.toMatchObject({ code: 'DKLS_PRESIGNATURE_STALE', status: 409 });
    await sign('after the refresh');
    expect(dklsMethods()).toEqual([DKLS_METHODS.signStart, DKLS_METHODS.step, DKLS_METHODS.signFinish]);

    // An abort (a deviating answer) makes the next signature renew the OT setup: pooled ones of the old setup are refused too.
    const afterRenewal = await stalePooled();
    await drain();
    tamper = true;
    expect((await app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key, body: { message: 'aborted' } })).status).toBe(503);
    const before = dklsShareSetupId((await shares()).find((s) => s.role === 'dkls-api')!);
    await sign('after the renewal');
    expect(dklsShareSetupId((await shares()).find((s) => s.role === 'dkls-api')!)).not.toBe(before);
    expect(dklsMethods()).toContain(DKLS_METHODS.otSetupStart);
    expect(dklsMethods().slice(-3)).toEqual([DKLS_METHODS.signStart, DKLS_METHODS.step, DKLS_METHODS.signFinish]);
    await expect(afterRenewal()).rejects.toMatchObject({ code: 'DKLS_PRESIGNATURE_STALE', status: 409 });
  }, 60_000);
});

describe('threshold ECDSA presignature pool with a real signer process', () => {
  const { children, cleanups } = suiteProcesses();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-dkls-pool-'));
  const startSigner = () => spawnSigner({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, children);
  let signer: Awaited<ReturnType<typeof startSigner>>;
  let client: ReturnType<typeof createSignerClient>;

  beforeAll(async () => {
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    signer = await startSigner();
    client = createSignerClient(signerClientSettings({ APP_ENV: 'local' }, dataDir));
    cleanups.push(() => client.close());
  }, 60_000);
  afterAll(async () => {
    signer.kill('SIGTERM');
  });

  it('a signer restart empties its side: the pooled presignature is unknown there, the API drops it and signs on demand, nothing used twice', async () => {
    const recorded = recording(client);
    const vault = createApiKeyVault(recorded.caller, {
      keks: fileKekProvider(path.join(dataDir, 'api'), API_KEK_ROLES),
      recovery: () => resolveRecoveryPublicKey({ appEnv: 'local', file: undefined, localDir: path.join(dataDir, 'recovery') }),
    });
    const id = crypto.randomUUID();
    const created = await vault.createWalletKey({ walletId: id, scheme: 'DKLS', clientHeldUserShare: false, custodyMode: 'threshold' });
    const wallet = { id, type: 'EVM' as const, scheme: 'DKLS' as const, address: deriveAddress('EVM', created.publicKey) as Hex, publicKey: formatPublicKey('EVM', created.publicKey) };
    const sign = async () => {
      recorded.calls.length = 0;
      const { response } = (await benchSigner(vault, { wallet, shares: created.shares })()) as WalletSignResult;
      expect(await verifyMessage({ address: wallet.address, message: BENCH_MESSAGE, signature: hexOf(response) })).toBe(true);
      return recorded.calls.map((c) => c.method);
    };
    await sign();
    await fill(vault, id, 2);
    expect(await sign()).toEqual([DKLS_METHODS.signFinish]);

    signer.kill('SIGTERM');
    await new Promise((resolve) => signer.once('exit', resolve));
    signer = await startSigner();
    expect(await sign()).toEqual([DKLS_METHODS.signFinish, DKLS_METHODS.signStart, DKLS_METHODS.step, DKLS_METHODS.signFinish]);
    const used = usedPresignatures(path.join(dataDir, 'signer'));
    expect(used).toHaveLength(3);
    expect(new Set(used).size).toBe(3);
    await presignPoolOf(vault)!.close();
  }, 60_000);
});
