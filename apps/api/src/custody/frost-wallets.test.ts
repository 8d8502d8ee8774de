import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { verifyPersonalMessageSignature } from '@mysten/sui/verify';
import { Keypair } from '@stellar/stellar-sdk';
import { ed25519KeyOfWallet, VAULT_METHODS, type EncryptedShare } from '@wallet/domain';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { fileKekProvider, openFrostShare, readLocalRecoveryPrivateKey, rebuildParticipant3 } from '@wallet/domain';
import { finishSigning, recoverShare, respondToSigning, startSigning, wipeKeyPackage } from '@wallet/frost-ed25519';
import path from 'node:path';
import { assertApiKeksOpenNoKey } from './api-kek-check.ts';

const ED_TYPES = ['SOLANA', 'STELLAR', 'SUI'] as const;
type EdType = (typeof ED_TYPES)[number];

const nodeVerifies = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) =>
  nodeVerify(null, message, createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]), format: 'der', type: 'spki' }), signature);

describe.each(testDatabaseKinds)('FROST(Ed25519) wallets through the service on %s', (kind) => {
  let app: TestApp;
  let key: string;
  const wallets = {} as Record<EdType, { id: string; address: string; publicKey: string }>;
  // Flips a bit of the signer's signature share for the wallets in `corrupt`.
  const corrupt = new Set<string>();

  beforeAll(async () => {
    app = await startTestApp(kind, {
      signerTamper: (method, result) => {
        if (method !== VAULT_METHODS.frostSign || corrupt.size === 0) return result;
        const answer = structuredClone(result) as { signatureShare: Uint8Array };
        answer.signatureShare[0]! ^= 1;
        return answer;
      },
    });
    key = (await app.createKey()).apiKey;
    for (const type of ED_TYPES) {
      const response = await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `frost-${type}`, userIdentifierType: 'CUSTOM_ID' } });
      expect(response.status).toBe(201);
      wallets[type] = response.body;
    }
  });
  afterAll(async () => {
    await app.close();
  });

  const storedShares = async (walletId: string) => (await app.services.stores.wallets.findShares(walletId)) as EncryptedShare[];
  const sign = (type: EdType, route: string, body: unknown) => app.request('POST', `/v1/wallets/${wallets[type].id}/${route}`, { key, body });

  it('stores participant 1 under the API KEK, participant 2 under the signer KEK, and two sealed contributions for participant 3', async () => {
    const shares = await storedShares(wallets.SOLANA.id);
    expect(shares.map((s) => `${s.role}@${s.epoch}`).sort()).toEqual(['frost-api@0', 'frost-signer@0', 'recovery-api@0', 'recovery-signer@0']);
    const apiKek = shares.find((s) => s.role === 'frost-api')!.kekId;
    const signerKek = shares.find((s) => s.role === 'frost-signer')!.kekId;
    expect(apiKek).toMatch(/^file-api-/);
    expect(signerKek).toMatch(/^file-service-/);
    const recoveryIds = new Set(shares.filter((s) => s.role.startsWith('recovery-')).map((s) => s.kekId));
    expect([...recoveryIds]).toEqual([expect.stringMatching(/^recovery-[0-9a-f]{16}$/)]);
  });

  it('signs messages of all three Ed25519 types: verified by @noble/curves (strict), node:crypto and the chain SDKs', async () => {
    const message = 'threshold ✓';
    const bytes = new TextEncoder().encode(message);
    for (const type of ['SOLANA', 'STELLAR'] as const) {
      const response = await sign(type, 'sign-message', { message });
      expect(response.status).toBe(200);
      const signature = Buffer.from(response.body.signature, 'hex');
      const publicKey = ed25519KeyOfWallet(type, wallets[type].publicKey);
      expect(ed25519.verify(signature, bytes, publicKey, { zip215: false })).toBe(true);
      expect(nodeVerifies(publicKey, bytes, signature)).toBe(true);
      if (type === 'STELLAR') expect(Keypair.fromPublicKey(wallets.STELLAR.address).verify(Buffer.from(bytes), signature)).toBe(true);
    }
    const sui = await sign('SUI', 'sign-message', { message });
    expect(sui.status).toBe(200);
    expect((await verifyPersonalMessageSignature(bytes, sui.body.signature)).toSuiAddress()).toBe(wallets.SUI.address);
  });

  it('randomized signatures: the same request twice gives two different signatures, both valid', async () => {
    const data = `0x${'ab'.repeat(40)}`;
    const [a, b] = [await sign('SOLANA', 'sign-raw', { data }), await sign('SOLANA', 'sign-raw', { data })];
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.signature).not.toBe(b.body.signature);
    const publicKey = ed25519KeyOfWallet('SOLANA', wallets.SOLANA.publicKey);
    for (const r of [a, b]) expect(ed25519.verify(Buffer.from(r.body.signature, 'hex'), Buffer.from(data.slice(2), 'hex'), publicKey, { zip215: false })).toBe(true);
  });

  it('the signer logs each signature it took part in, with the digest the audit row records', async () => {
    const before = app.signer.store.signatures.length;
    const response = await sign('STELLAR', 'sign-raw', { data: '0x0102' });
    expect(response.status).toBe(200);
    const logged = app.signer.store.signatures.slice(before);
    expect(logged).toHaveLength(1);
    const row = await app.database.prisma.auditLog.findFirstOrThrow({ where: { walletId: wallets.STELLAR.id, action: 'wallet.sign.sign-raw' }, orderBy: { id: 'desc' } });
    expect(logged[0]).toMatchObject({ walletId: wallets.STELLAR.id, digest: (row.details as { digest: string }).digest, requestId: row.requestId });
  });

  it('a signer answering a wrong signature share releases no signature: 500, no audit row', async () => {
    const count = () => app.database.prisma.auditLog.count({ where: { walletId: wallets.SUI.id, action: { startsWith: 'wallet.sign' } } });
    const before = await count();
    corrupt.add(wallets.SUI.id);
    try {
      const response = await sign('SUI', 'sign-raw', { data: '0x0a0b0c' });
      expect(response.status).toBe(500);
      expect(response.body.code).toBe('INTERNAL_ERROR');
      expect(JSON.stringify(response.body)).not.toMatch(/signature"\s*:/);
    } finally {
      corrupt.clear();
    }
    expect(await count()).toBe(before);
  });

  it('the signer derives the message itself: a message that is not what the operation signs is refused', async () => {
    const shares = await storedShares(wallets.SOLANA.id);
    const wallet = { id: wallets.SOLANA.id, type: 'SOLANA', scheme: 'ED25519', address: wallets.SOLANA.address, publicKey: wallets.SOLANA.publicKey };
    const { encodeVaultValue } = await import('@wallet/domain');
    const params = encodeVaultValue({
      wallet,
      share: shares.find((s) => s.role === 'frost-signer'),
      operation: 'raw',
      input: { data: '0x01' },
      requestId: null,
      action: 'test',
      message: Uint8Array.of(2),
      commitments: { identifier: 1, hiding: ed25519.Point.BASE.toBytes(), binding: ed25519.Point.BASE.multiply(2n).toBytes() },
    });
    await expect(app.signer.call(VAULT_METHODS.frostSign, params)).rejects.toMatchObject({ code: 'FROST_MESSAGE_MISMATCH', status: 400 });
    // A share of another wallet does not open for this one.
    const other = (await storedShares(wallets.STELLAR.id)).find((s) => s.role === 'frost-signer');
    await expect(app.signer.call(VAULT_METHODS.frostSign, encodeVaultValue({ ...(params as object), message: Uint8Array.of(1), share: other }))).rejects.toMatchObject({ code: 'SHARE_REFUSED' });
  });

  it("the API's start-up check finds a signer KEK given to the API, by the FROST signer shares it opens", async () => {
    const apiKeks = fileKekProvider(path.join(app.dataDir, 'api'), ['api']).list!();
    await expect(assertApiKeksOpenNoKey(app.database, apiKeks)).resolves.toBeUndefined();
    const service = fileKekProvider(path.join(app.dataDir, 'signer')).current('service');
    await expect(assertApiKeksOpenNoKey(app.database, [...apiKeks, { id: 'copied', key: service.key }])).rejects.toThrow(/API KEK copied opens the frost-signer share of wallet/);
  });

  it('recovery of a DKG wallet: participant 3 from the two dealers\' sealed contributions, then the lost API share rebuilt from 2 and 3, signing under the same key', async () => {
    const shares = await storedShares(wallets.STELLAR.id);
    const groupKey = ed25519KeyOfWallet('STELLAR', wallets.STELLAR.publicKey);
    const signer = openFrostShare(fileKekProvider(path.join(app.dataDir, 'signer')), wallets.STELLAR.id, 'frost-signer', shares.find((s) => s.role === 'frost-signer')!, groupKey);
    const third = rebuildParticipant3(readLocalRecoveryPrivateKey(path.join(app.dataDir, 'recovery')), wallets.STELLAR.id, shares, signer.publicKeyPackage);
    const api = recoverShare(1, [signer.keyPackage, third], signer.publicKeyPackage);
    const message = new TextEncoder().encode('rebuilt');
    const { nonces, request } = startSigning(api, message, 2);
    const signature = finishSigning(api, signer.publicKeyPackage, nonces, request, respondToSigning(signer.keyPackage, signer.publicKeyPackage, request));
    expect(ed25519.verify(signature, message, groupKey, { zip215: false })).toBe(true);
    for (const k of [api, third, signer.keyPackage]) wipeKeyPackage(k);
  });
});
