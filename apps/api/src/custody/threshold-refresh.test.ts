/**
 * `npm run custody -- refresh` on threshold ECDSA (DKLs23) wallets, made by key generation and by
 * conversion: the shares move to the next epoch by a sharing of zero and a fresh OT setup, the
 * public key and address stay, the old signer share is refused, participant 3's share follows (its
 * recovery rows give p'(3), which with the API's new share interpolates to the key); a run killed
 * before the write leaves the old shares, which still sign (a fresh OT setup renews them) until the
 * rerun refreshes them.
 */
import path from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { testDatabaseKinds } from '@wallet/db';
import {
  DKLS_METHODS,
  encodeVaultValue,
  fileKekProvider,
  openDklsShare,
  openFromRecovery,
  readLocalRecoveryPrivateKey,
  refreshWalletShares,
  resolveRecoveryPublicKey,
  secp256k1KeyOfWallet,
  type EncryptedShare,
  type KeyMaintenanceDeps,
} from '@wallet/domain';
import { presignParty, refreshOfflineShare, type RefreshContribution } from '@wallet/threshold-ecdsa';
import { verifyMessage, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { createVaultCall } from './remote-vault.ts';
import { apiKekProvider } from './signer-connection.ts';

type Wallet = { id: string; type: 'EVM'; address: Hex; publicKey: string };

describe.each(testDatabaseKinds)('refresh of threshold ECDSA wallets on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let generated: Wallet;
  let converted: Wallet;

  beforeAll(async () => {
    app = await startTestApp(kind, {});
    const issued = await app.createKey();
    key = issued.apiKey;
    const create = async (user: string) => (await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: user, userIdentifierType: 'CUSTOM_ID' } })).body as Wallet;
    converted = await create('converted');
    expect((await app.services.keyMaintenance!.convertWallet(converted.id)).outcome).toBe('converted');
    await app.services.custodyMode.set({ projectId: issued.projectId, environment: 'development' }, 'threshold');
    generated = await create('generated');
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const deps = (extra: Partial<KeyMaintenanceDeps> = {}): KeyMaintenanceDeps => ({
    store: app.services.stores.keyMaintenance,
    call: createVaultCall(app.signer),
    keks: apiKekProvider(loadConfig({ APP_ENV: 'local', DATA_DIR: app.dataDir })),
    recovery: () => resolveRecoveryPublicKey({ appEnv: 'local', file: undefined, localDir: path.join(app.dataDir, 'recovery') }),
    ...extra,
  });
  const shares = async (wallet: Wallet) => (await app.services.stores.wallets.findShares(wallet.id)) as EncryptedShare[];
  const roles = async (wallet: Wallet) => (await shares(wallet)).map((s) => `${s.role}@${s.epoch}`).sort();
  async function signs(wallet: Wallet) {
    const message = `after ${Math.random()}`;
    const signed = await app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key, body: { message } });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(await verifyMessage({ address: wallet.address, message, signature: `0x${signed.body.signature}` })).toBe(true);
  }

  it('a run killed before the write leaves the old shares, which still sign; the rerun refreshes both wallets to the next epoch, same address, old signer share refused', async () => {
    const before = { generated: await roles(generated), converted: await roles(converted) };
    const killed = await refreshWalletShares(deps({ beforeWrite: () => Promise.reject(new Error('killed')) }));
    expect(killed).toMatchObject({ wallets: 2, done: 0, failed: 2 });
    expect({ generated: await roles(generated), converted: await roles(converted) }).toEqual(before);
    // The signer has moved on to the killed run's OT setup: the first signature renews the stored shares' setup.
    await signs(generated);
    await signs(converted);

    const oldSigner = (await shares(generated)).find((s) => s.role === 'dkls-signer')!;
    expect(await refreshWalletShares(deps())).toMatchObject({ command: 'refresh', wallets: 2, done: 2, failed: 0 });
    expect(await roles(generated)).toEqual(['dkls-api@1', 'dkls-signer@1', 'recovery-api@0', 'recovery-api@1', 'recovery-signer@0', 'recovery-signer@1']);
    expect(await roles(converted)).toEqual(['dkls-api@2', 'dkls-signer@2', 'recovery-api@2', 'recovery-signer@1', 'recovery-signer@2']);
    for (const wallet of [generated, converted]) {
      const stored = await app.services.stores.wallets.findById(wallet.id);
      expect([stored?.address, stored?.publicKey, stored?.custodyMode]).toEqual([wallet.address, wallet.publicKey, 'threshold']);
      await signs(wallet);
    }
    expect(app.signer.store.epochOf(generated.id)).toBe(1);
    const vaultWallet = { id: generated.id, type: 'EVM', scheme: 'DKLS', address: generated.address, publicKey: generated.publicKey };
    const hello = presignParty(openDklsShare(apiKekProvider(loadConfig({ APP_ENV: 'local', DATA_DIR: app.dataDir })), generated.id, 'dkls-api', (await shares(generated)).find((s) => s.role === 'dkls-api')!, secp256k1KeyOfWallet(vaultWallet as never))).first();
    await expect(app.signer.call(DKLS_METHODS.signStart, encodeVaultValue({ wallet: vaultWallet, share: oldSigner, messages: [hello] }))).rejects.toMatchObject({ code: 'SHARE_EPOCH_RETIRED' });
  }, 60_000);

  it("participant 3 follows: the converted wallet's dealt p(3) plus the refresh contributions interpolates with the API's new share to the key", async () => {
    const stored = await shares(converted);
    const vaultWallet = { id: converted.id, type: 'EVM' as const, scheme: 'DKLS' as const, address: converted.address, publicKey: converted.publicKey };
    const publicKey = secp256k1KeyOfWallet(vaultWallet);
    const api = openDklsShare(fileKekProvider(path.join(app.dataDir, 'api'), ['api']), converted.id, 'dkls-api', stored.find((s) => s.role === 'dkls-api')!, publicKey);
    const privateKey = readLocalRecoveryPrivateKey(path.join(app.dataDir, 'recovery'));
    const items = stored.filter((s) => s.role.startsWith('recovery-')).map((s) => openFromRecovery(privateKey, converted.id, s, publicKey));
    const dealt = items.find((i) => i.kind === 'ecdsa-dealt-share');
    const contributions = items.flatMap((i) => (i.kind === 'ecdsa-refresh' ? [i.contribution as RefreshContribution] : []));
    if (!dealt || dealt.kind !== 'ecdsa-dealt-share') throw new Error('no dealt share');
    expect(contributions.map((c) => c.sender).sort()).toEqual([1, 2]);
    const p3 = BigInt(`0x${Buffer.from(refreshOfflineShare(dealt.share.share, contributions, api.verifyingShares[2])).toString('hex')}`);
    const p1 = BigInt(`0x${Buffer.from(api.encode().subarray(3, 35)).toString('hex')}`);
    const n = secp256k1.Point.CURVE().n;
    // sk = (3·p(1) − p(3)) / 2 for the points 1 and 3 of a degree-1 polynomial.
    const sk = (((3n * p1 - p3) % n) + n) % n * ((n + 1n) / 2n) % n;
    expect(Buffer.from(secp256k1.getPublicKey(Buffer.from(sk.toString(16).padStart(64, '0'), 'hex'), true)).equals(Buffer.from(publicKey))).toBe(true);
    api.wipe();
  });
});
