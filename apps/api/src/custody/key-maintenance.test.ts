import path from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { verifyPersonalMessageSignature } from '@mysten/sui/verify';
import { Keypair } from '@stellar/stellar-sdk';
import { getPublicKeyFromAddress, verifySignature, address as solanaAddress, type SignatureBytes } from '@solana/kit';
import {
  convertWalletsToFrost,
  decodeFrostShare,
  ed25519KeyOfWallet,
  encodeFrostShare,
  openFrostShare,
  readLocalRecoveryPrivateKey,
  rebuildParticipant3,
  refreshWalletShares,
  resolveRecoveryPublicKey,
  VAULT_METHODS,
  type EncryptedShare,
  type KeyMaintenanceDeps,
} from '@wallet/domain';
import { testDatabaseKinds } from '@wallet/db';
import { recoverShare, startSigning, finishSigning, respondToSigning, wipeKeyPackage } from '@wallet/frost-ed25519';
import { recoverMessageAddress, type Hex } from 'viem';
import { compareWithAudit } from '@wallet/signer/signature-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { loadConfig } from '../config.ts';
import { createVaultCall } from './remote-vault.ts';
import { apiKekProvider } from './signer-connection.ts';

const TYPES = ['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'] as const;
type WalletType = (typeof TYPES)[number];

describe.each(testDatabaseKinds)('npm run custody: convert, refresh, recovery on %s', (kind) => {
  let app: TestApp;
  let key: string;
  /** While set, the in-process signer answers signatures that do not verify (its secp256k1 `sign`). */
  let corruptSignatures = false;
  const wallets = {} as Record<WalletType, { id: string; address: string; publicKey: string }>;

  beforeAll(async () => {
    // Wallets made by the old path: Ed25519 keys as XOR halves sealed by the signer.
    app = await startTestApp(kind, {
      xorEd25519Wallets: true,
      signerTamper: (method, result) => {
        if (!corruptSignatures || method !== VAULT_METHODS.sign) return result;
        const signed = result as { response: { signature: string } };
        const flipped = (signed.response.signature[0] === '0' ? '1' : '0') + signed.response.signature.slice(1);
        return { ...signed, response: { ...signed.response, signature: flipped } };
      },
    });
    key = (await app.createKey()).apiKey;
    for (const type of TYPES) {
      const response = await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `custody-${type}`, userIdentifierType: 'CUSTOM_ID' } });
      expect(response.status).toBe(201);
      wallets[type] = response.body;
    }
  });
  afterAll(async () => {
    await app.close();
  });

  const config = () => loadConfig({ APP_ENV: 'local', DATA_DIR: app.dataDir });
  const deps = (extra: Partial<KeyMaintenanceDeps> = {}): KeyMaintenanceDeps => ({
    store: app.services.stores.keyMaintenance,
    call: createVaultCall(app.signer),
    keks: apiKekProvider(config()),
    recovery: () => resolveRecoveryPublicKey({ appEnv: 'local', file: undefined, localDir: path.join(app.dataDir, 'recovery') }),
    ...extra,
  });
  const shares = async (type: WalletType) => (await app.services.stores.wallets.findShares(wallets[type].id)) as EncryptedShare[];
  const roles = async (type: WalletType) => (await shares(type)).map((s) => `${s.role}@${s.epoch}`).sort();

  /** Signs with every wallet over HTTP and checks the signature with the chain's SDK under the unchanged address. */
  async function signsEverywhere() {
    const message = `after ${Math.random()}`;
    const bytes = new TextEncoder().encode(message);
    for (const type of TYPES) {
      const response = await app.request('POST', `/v1/wallets/${wallets[type].id}/sign-message`, { key, body: { message } });
      expect(response.status, type).toBe(200);
      const signature = response.body.signature as string;
      if (type === 'EVM') expect(await recoverMessageAddress({ message, signature: `0x${signature}` as Hex })).toBe(wallets.EVM.address);
      if (type === 'SOLANA') {
        const publicKey = await getPublicKeyFromAddress(solanaAddress(wallets.SOLANA.address));
        expect(await verifySignature(publicKey, Buffer.from(signature, 'hex') as unknown as SignatureBytes, bytes)).toBe(true);
      }
      if (type === 'STELLAR') expect(Keypair.fromPublicKey(wallets.STELLAR.address).verify(Buffer.from(bytes), Buffer.from(signature, 'hex'))).toBe(true);
      if (type === 'SUI') expect((await verifyPersonalMessageSignature(bytes, signature)).toSuiAddress()).toBe(wallets.SUI.address);
      if (type === 'SOLANA' || type === 'STELLAR') {
        expect(ed25519.verify(Buffer.from(signature, 'hex'), bytes, ed25519KeyOfWallet(type, wallets[type].publicKey), { zip215: false })).toBe(true);
      }
    }
  }

  it('starts with XOR halves for every wallet, all signing', async () => {
    for (const type of TYPES) expect(await roles(type)).toEqual(['service@0', 'user@0']);
    await signsEverywhere();
  });

  it('convert: a kill in the middle leaves the old shares in place; the rerun converts the rest; then every wallet signs with the same address', async () => {
    const killAt = wallets.STELLAR.id;
    const killed = await convertWalletsToFrost(deps({ beforeWrite: (id) => { if (id === killAt) throw new Error('killed'); } }));
    expect(killed).toMatchObject({ command: 'convert', wallets: 3, failed: 1 });
    expect(await roles('STELLAR')).toEqual(['service@0', 'user@0']);
    await signsEverywhere();

    const rerun = await convertWalletsToFrost(deps());
    expect(rerun).toMatchObject({ wallets: 3, done: 1, skipped: 2, failed: 0 });
    for (const type of ['SOLANA', 'STELLAR', 'SUI'] as const) expect(await roles(type)).toEqual(['frost-api@1', 'frost-signer@1', 'recovery-signer@1']);
    for (const type of ['EVM', 'COSMOS'] as const) expect(await roles(type)).toEqual(['service@0', 'user@0']);
    // Addresses and public keys unchanged.
    for (const type of TYPES) {
      const stored = await app.services.stores.wallets.findById(wallets[type].id);
      expect([stored?.address, stored?.publicKey]).toEqual([wallets[type].address, wallets[type].publicKey]);
    }
    await signsEverywhere();
    expect(await convertWalletsToFrost(deps())).toMatchObject({ wallets: 3, done: 0, skipped: 3 });
  });

  it('convert retired the old halves: the signer refuses them (their epoch is below the wallet’s)', async () => {
    // The halves as they were sealed (epoch 0) are gone from the database; a copy replayed is refused.
    const wallet = { id: wallets.SOLANA.id, type: 'SOLANA', scheme: 'ED25519', address: wallets.SOLANA.address, publicKey: wallets.SOLANA.publicKey };
    expect(app.signer.store.epochOf(wallet.id)).toBe(1);
    const stale = { role: 'service', epoch: 0, kekId: 'x', iv: new Uint8Array(12), ciphertext: new Uint8Array(32) };
    await expect(createVaultCall(app.signer)(VAULT_METHODS.sign, { wallet, shares: [{ ...stale, role: 'user' }, stale], operation: 'raw', input: { data: '0x01' }, requestId: null, action: 't' })).rejects.toMatchObject({ status: 500 });
  });

  it('refresh: a secp256k1 pair whose test signature does not verify under the stored key is not written', async () => {
    const before = await roles('EVM');
    corruptSignatures = true;
    try {
      const counts = await refreshWalletShares(deps());
      expect(counts.failures).toEqual(
        expect.arrayContaining([{ walletId: wallets.EVM.id, error: 'the test signature of the new shares does not verify' }, { walletId: wallets.COSMOS.id, error: 'the test signature of the new shares does not verify' }]),
      );
    } finally {
      corruptSignatures = false;
    }
    expect(await roles('EVM')).toEqual(before);
    // The FROST wallets went on (each wallet stands alone); the next run refreshes the rest.
    await signsEverywhere();
  });

  it('refresh: new shares at the next epoch for every wallet, same addresses; a replayed older signer share is refused', async () => {
    const before = await shares('SUI');
    const oldSignerShare = before.find((s) => s.role === 'frost-signer')!;
    const counts = await refreshWalletShares(deps());
    expect(counts).toMatchObject({ command: 'refresh', wallets: 5, done: 5, failed: 0 });
    expect(await roles('SUI')).toEqual(['frost-api@3', 'frost-signer@3', 'recovery-api@2', 'recovery-api@3', 'recovery-signer@1', 'recovery-signer@2', 'recovery-signer@3']);
    expect(await roles('EVM')).toEqual(['service@1', 'user@1']);
    // Every test signature the signer made for convert and refresh has its audit row (verify-log pairs
    // them), also those of the killed conversion and of the refused pairs: each was recorded when made.
    const checks = app.signer.store.signatures.filter((e) => e.action === 'wallet.sign.custody-check');
    const rows = await app.database.prisma.auditLog.findMany({ where: { action: 'wallet.sign.custody-check' } });
    expect(checks.length).toBeGreaterThanOrEqual(5 + 3);
    const paired = compareWithAudit(
      checks.map((e, seq) => ({ ...e, seq, time: '', prevHash: '', hash: '' })) as never,
      rows.map((r) => ({ walletId: r.walletId!, digest: (r.details as { digest: string }).digest, requestId: r.requestId, action: r.action, at: '' })),
    );
    expect([paired.missingInAudit, paired.missingInLog]).toEqual([[], []]);
    await signsEverywhere();

    // The old sealed signer share (epoch 1), replayed with a fresh API request, is refused by the signer.
    const wallet = { id: wallets.SUI.id, type: 'SUI', scheme: 'ED25519', address: wallets.SUI.address, publicKey: wallets.SUI.publicKey };
    await expect(
      app.signer.call(VAULT_METHODS.frostSign, (await import('@wallet/domain')).encodeVaultValue({
        wallet,
        share: oldSignerShare,
        operation: 'raw',
        input: { data: '0x01' },
        requestId: null,
        action: 'replay',
        message: Uint8Array.of(1),
        commitments: { identifier: 1, hiding: ed25519.Point.BASE.toBytes(), binding: ed25519.Point.BASE.multiply(3n).toBytes() },
      })),
    ).rejects.toMatchObject({ code: 'SHARE_EPOCH_RETIRED', status: 409 });
    // A run killed after the write (before the commit) is finished by the next run.
    expect(await refreshWalletShares(deps())).toMatchObject({ done: 5, failed: 0 });
    await signsEverywhere();
  });

  it('recovery: participant 3 rebuilt offline from its sealed contributions, with one online share rebuilds the other, and the pair signs', async () => {
    const type = 'SOLANA';
    const stored = await shares(type);
    const groupKey = ed25519KeyOfWallet(type, wallets[type].publicKey);
    const apiShare = stored.filter((s) => s.role === 'frost-api').sort((a, b) => b.epoch - a.epoch)[0]!;
    const api = openFrostShare(apiKekProvider(config()), wallets[type].id, 'frost-api', apiShare, groupKey);
    const privateKey = readLocalRecoveryPrivateKey(path.join(app.dataDir, 'recovery'));
    const third = rebuildParticipant3(privateKey, wallets[type].id, stored, api.publicKeyPackage);
    // The signer's share is lost: rebuilt at identifier 2 from participants 1 and 3.
    const rebuilt = recoverShare(2, [api.keyPackage, third], api.publicKeyPackage);
    expect(Buffer.from(rebuilt.verifyingShare).equals(Buffer.from(api.publicKeyPackage.verifyingShares[1]!))).toBe(true);
    // It has the form the signer's own share has …
    const roundTrip = decodeFrostShare(encodeFrostShare({ keyPackage: rebuilt, publicKeyPackage: api.publicKeyPackage }));
    expect(roundTrip.keyPackage.identifier).toBe(2);
    // … and the pair signs under the wallet's unchanged address.
    const message = new TextEncoder().encode('recovered');
    const { nonces, request } = startSigning(api.keyPackage, message, 2);
    const signature = finishSigning(api.keyPackage, api.publicKeyPackage, nonces, request, respondToSigning(rebuilt, api.publicKeyPackage, request));
    expect(ed25519.verify(signature, message, groupKey, { zip215: false })).toBe(true);
    for (const k of [api.keyPackage, third, rebuilt, roundTrip.keyPackage]) wipeKeyPackage(k);
  });
});
