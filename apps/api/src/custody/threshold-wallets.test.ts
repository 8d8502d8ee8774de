import path from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { testDatabaseKinds } from '@wallet/db';
import { decodeVaultValue, dklsShareSetupId, DKLS_METHODS, encodeVaultValue, fileKekProvider, openDklsShare, secp256k1KeyOfWallet, type EncryptedShare } from '@wallet/domain';
import { presignParty } from '@wallet/threshold-ecdsa';
import { hashMessage, verifyMessage, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { signingMatrix } from '../testing/signing-matrix.ts';
import { assertApiKeksOpenNoKey } from './api-kek-check.ts';

type Wallet = { id: string; type: 'EVM' | 'COSMOS'; address: string; publicKey: string; custodyMode: string };

describe.each(testDatabaseKinds)('threshold ECDSA (DKLs23) wallets through the service on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let projectId: string;
  const wallets = {} as Record<'EVM' | 'COSMOS', Wallet>;
  /** Wallets whose next signer answer to a `step` gets one byte flipped (a deviating signer). */
  const corrupt = new Set<string>();

  beforeAll(async () => {
    app = await startTestApp(kind, {
      signerTamper: (method, result) => {
        if (method !== DKLS_METHODS.step || corrupt.size === 0) return result;
        const answer = decodeVaultValue(result) as { messages: Uint8Array[] };
        const message = answer.messages[0]!;
        message[message.length - 1]! ^= 1;
        corrupt.clear();
        return encodeVaultValue(answer);
      },
    });
    const issued = await app.createKey();
    key = issued.apiKey;
    projectId = issued.projectId;
    await app.services.custodyMode.set({ projectId, environment: 'development' }, 'threshold');
    for (const type of ['EVM', 'COSMOS'] as const) {
      const response = await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `dkls-${type}`, userIdentifierType: 'CUSTOM_ID' } });
      expect(response.status).toBe(201);
      wallets[type] = response.body;
    }
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const storedShares = async (walletId: string) => (await app.services.stores.wallets.findShares(walletId)) as EncryptedShare[];
  const shareOf = (shares: EncryptedShare[], role: string) => shares.find((s) => s.role === role)!;
  const sign = (wallet: Wallet, route: string, body: unknown) => app.request('POST', `/v1/wallets/${wallet.id}/${route}`, { key, body });

  it('creates EVM and COSMOS wallets in the project mode: custodyMode threshold, participant 1 under the API KEK, 2 under the signer KEK, two recovery contributions', async () => {
    for (const wallet of Object.values(wallets)) {
      expect(wallet.custodyMode).toBe('threshold');
      expect((await app.request('GET', `/v1/wallets/${wallet.id}`, { key })).body.custodyMode).toBe('threshold');
      const shares = await storedShares(wallet.id);
      expect(shares.map((s) => `${s.role}@${s.epoch}`).sort()).toEqual(['dkls-api@0', 'dkls-signer@0', 'recovery-api@0', 'recovery-signer@0']);
      expect(shareOf(shares, 'dkls-api').kekId).toMatch(/^file-api-/);
      expect(shareOf(shares, 'dkls-signer').kekId).toMatch(/^file-service-/);
      expect(dklsShareSetupId(shareOf(shares, 'dkls-api'))).toBe(dklsShareSetupId(shareOf(shares, 'dkls-signer')));
    }
    // The API's KEKs open none of the signer's shares; the signer's service KEK given to the API is found by the dkls-signer share it opens.
    const apiKeks = fileKekProvider(path.join(app.dataDir, 'api'), ['api']).list!();
    await expect(assertApiKeksOpenNoKey(app.database, apiKeks)).resolves.toBeUndefined();
    const service = fileKekProvider(path.join(app.dataDir, 'signer')).current('service');
    await expect(assertApiKeksOpenNoKey(app.database, [...apiKeks, { id: 'copied', key: service.key }])).rejects.toThrow(/API KEK copied opens the (dkls|frost)-signer share of wallet/);
    const list = await app.request('GET', '/v1/wallets', { key });
    expect(list.body.data.every((w: Wallet) => w.custodyMode === 'threshold')).toBe(true);
  });

  it('keeps new wallets isolated once the project mode is isolated again; Ed25519 wallets are threshold (FROST)', async () => {
    await app.services.custodyMode.set({ projectId, environment: 'development' }, 'isolated');
    try {
      const evm = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: 'isolated-evm', userIdentifierType: 'CUSTOM_ID' } });
      expect(evm.body.custodyMode).toBe('isolated');
      expect((await storedShares(evm.body.id)).map((s) => s.role).sort()).toEqual(['service', 'user']);
      const sol = await app.request('POST', '/v1/wallets', { key, body: { type: 'SOLANA', userIdentifier: 'frost-sol', userIdentifierType: 'CUSTOM_ID' } });
      expect(sol.body.custodyMode).toBe('threshold');
    } finally {
      await app.services.custodyMode.set({ projectId, environment: 'development' }, 'threshold');
    }
  });

  it('signs every EVM and COSMOS route, each signature verified by the chain SDK (viem, CosmJS)', async () => {
    const cells = signingMatrix.filter((cell) => cell.type === 'EVM' || cell.type === 'COSMOS');
    expect(cells.length).toBeGreaterThanOrEqual(6);
    for (const cell of cells) {
      const wallet = wallets[cell.type as 'EVM' | 'COSMOS'];
      const body = await cell.body(wallet);
      const response = await sign(wallet, cell.route, body);
      expect(response.status, `${cell.type} ${cell.route}: ${JSON.stringify(response.body)}`).toBe(200);
      expect(await cell.verify(wallet, response.body, body), `${cell.type} ${cell.route}`).toBe(true);
    }
  }, 120_000);

  it('randomized: the same message twice gives two different signatures, both valid under @noble/curves (low S) and viem', async () => {
    const message = 'threshold ECDSA ✓';
    const [a, b] = [await sign(wallets.EVM, 'sign-message', { message }), await sign(wallets.EVM, 'sign-message', { message })];
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.signature).not.toBe(b.body.signature);
    const publicKey = secp256k1KeyOfWallet(wallets.EVM);
    for (const { body } of [a, b]) {
      expect(await verifyMessage({ address: wallets.EVM.address as Hex, message, signature: `0x${body.signature}` })).toBe(true);
      const compact = Buffer.from(body.signature.slice(0, 128), 'hex');
      expect(secp256k1.verify(compact, Buffer.from(hashMessage(message).slice(2), 'hex'), publicKey, { prehash: false, lowS: true })).toBe(true);
    }
  });

  it('a signer that deviates makes the API abort with nothing signed; the next request renews the OT setup and signs', async () => {
    const before = await storedShares(wallets.EVM.id);
    const audits = async () => (await app.services.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE wallet_id = $1 AND action LIKE 'wallet.sign.%'`, [wallets.EVM.id]))[0]!.n;
    const signedBefore = await audits();
    corrupt.add(wallets.EVM.id);
    const refused = await sign(wallets.EVM, 'sign-message', { message: 'deviating peer' });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('SIGNER_UNAVAILABLE');
    expect(await audits()).toBe(signedBefore);
    // The API stored its share marked unusable (same setup id); the next signature renews both shares first.
    const ok = await sign(wallets.EVM, 'sign-message', { message: 'after the abort' });
    expect(ok.status).toBe(200);
    expect(await verifyMessage({ address: wallets.EVM.address as Hex, message: 'after the abort', signature: `0x${ok.body.signature}` })).toBe(true);
    const after = await storedShares(wallets.EVM.id);
    expect(dklsShareSetupId(shareOf(after, 'dkls-api'))).not.toBe(dklsShareSetupId(shareOf(before, 'dkls-api')));
    expect(dklsShareSetupId(shareOf(after, 'dkls-api'))).toBe(dklsShareSetupId(shareOf(after, 'dkls-signer')));

    // The signer refuses the sealed share from before the renewal.
    const wallet = { id: wallets.EVM.id, type: 'EVM' as const, scheme: 'DKLS' as const, address: wallets.EVM.address, publicKey: wallets.EVM.publicKey };
    const stale = app.signer!.call(DKLS_METHODS.signStart, encodeVaultValue({ wallet, share: shareOf(before, 'dkls-signer'), messages: [new Uint8Array(36)] }));
    await expect(stale).rejects.toMatchObject({ code: 'DKLS_OT_SETUP_RETIRED', status: 409 });
  }, 60_000);

  it('a presignature serves one digest: the signer records it used, a replayed final exchange is refused', async () => {
    const wallet = { id: wallets.EVM.id, type: 'EVM' as const, scheme: 'DKLS' as const, address: wallets.EVM.address, publicKey: wallets.EVM.publicKey };
    const shares = await storedShares(wallet.id);
    const apiShare = openDklsShare(fileKekProvider(path.join(app.dataDir, 'api'), ['api']), wallet.id, 'dkls-api', shareOf(shares, 'dkls-api'), secp256k1KeyOfWallet(wallet));
    const call = async <T>(method: string, params: unknown) => decodeVaultValue(await app.signer!.call(method, encodeVaultValue(params))) as T;
    const party = presignParty(apiShare);
    let answer = await call<{ sessionId: string; messages: Uint8Array[]; done: boolean }>(DKLS_METHODS.signStart, { wallet, share: shareOf(shares, 'dkls-signer'), messages: [party.first()] });
    while (!answer.done) {
      const outbox = answer.messages.map((m) => party.step(m)).filter((m): m is Uint8Array => m !== null);
      answer = await call(DKLS_METHODS.step, { sessionId: answer.sessionId, walletId: wallet.id, messages: outbox });
    }
    for (const m of answer.messages) party.step(m);
    const message = 'one presignature, one digest';
    const digest = Buffer.from(hashMessage(message).slice(2), 'hex');
    const pending = party.result().prepareFinalMessage(digest);
    const finish = { sessionId: answer.sessionId, wallet, operation: 'message', input: { message }, requestId: null, action: 'wallet.sign.message', digest, message: pending.message };
    const final = await call<{ message: Uint8Array }>(DKLS_METHODS.signFinish, finish);
    const signature = pending.finish(final.message);
    expect(secp256k1.verify(signature.compact, digest, apiShare.publicKey, { prehash: false })).toBe(true);
    expect(app.signer!.threshold.setupOf(wallet.id)?.usable).toBe(true);
    await expect(call(DKLS_METHODS.signFinish, finish)).rejects.toMatchObject({ status: 409 });
    expect(() => app.signer!.threshold.claimPresignature(pending.presignatureId)).toThrow(/already used/);
    expect(app.signer!.store.signatures.at(-1)).toMatchObject({ walletId: wallet.id, presignature: pending.presignatureId });

    // A digest other than the one the operation signs is refused, and the presignature is gone with it.
    const second = presignParty(apiShare);
    let next = await call<{ sessionId: string; messages: Uint8Array[]; done: boolean }>(DKLS_METHODS.signStart, { wallet, share: shareOf(shares, 'dkls-signer'), messages: [second.first()] });
    while (!next.done) {
      const outbox = next.messages.map((m) => second.step(m)).filter((m): m is Uint8Array => m !== null);
      next = await call(DKLS_METHODS.step, { sessionId: next.sessionId, walletId: wallet.id, messages: outbox });
    }
    for (const m of next.messages) second.step(m);
    const otherDigest = Buffer.from(hashMessage('another message').slice(2), 'hex');
    const wrong = second.result().prepareFinalMessage(otherDigest);
    const refused = { ...finish, sessionId: next.sessionId, digest: otherDigest, message: wrong.message };
    await expect(call(DKLS_METHODS.signFinish, refused)).rejects.toMatchObject({ code: 'DKLS_DIGEST_MISMATCH', status: 400 });
    await expect(call(DKLS_METHODS.signFinish, { ...refused, digest })).rejects.toMatchObject({ status: 409 });

    // Another wallet's sealed signer share does not open for this wallet.
    const cosmosShare = shareOf(await storedShares(wallets.COSMOS.id), 'dkls-signer');
    await expect(call(DKLS_METHODS.signStart, { wallet, share: cosmosShare, messages: [presignParty(apiShare).first()] })).rejects.toMatchObject({ code: expect.stringMatching(/SHARE_REFUSED|DKLS_OT_SETUP_RETIRED/) });
    apiShare.wipe();
  }, 60_000);
});
