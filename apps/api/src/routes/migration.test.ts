import { createHash, createPublicKey, randomBytes } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { encryptShareForMigration } from '@wallet/domain';
import { verifyMessage, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';

describe.each(testDatabaseKinds)('wallet share migration on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let projectId: string;
  let pem: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    const issued = await app.createKey();
    key = issued.apiKey;
    projectId = issued.projectId;
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of app.secrets()) expect(logs).not.toContain(secret);
    await app.close();
  });

  const pregen = (identifier: string, type = 'EVM') =>
    app.services.users.pregenerateClientWallet({ projectId, type: type as never, userIdentifier: identifier, userIdentifierType: 'CUSTOM_ID' });
  const migrate = (walletId: string, body: unknown) => app.request('POST', `/v1/wallets/${walletId}/migrate-share`, { key, body });
  const payloadFor = (walletId: string, signer: string, scheme: 'DKLS' | 'ED25519' = 'DKLS', userId = walletId) =>
    encryptShareForMigration(pem, [{ userId, walletId, walletScheme: scheme, signer }]);

  it('publishes the enclave key with its SPKI fingerprint, one key however many first requests come at once', async () => {
    // Each process caches the key once read, so the race is between processes: four of them, four calls each.
    const processes = [app, ...(await Promise.all([1, 2, 3].map(() => startTestApp(kind, { alongside: app }))))];
    try {
      const firsts = await Promise.all(processes.flatMap((p) => [1, 2, 3, 4].map(() => p.request('GET', '/v1/enclave/public-key', { key }))));
      for (const answer of firsts) expect(answer).toMatchObject({ status: 200, body: firsts[0]!.body });
      expect(await app.database.prisma.enclaveKey.count()).toBe(1);
    } finally {
      for (const other of processes.slice(1)) await other.close();
    }
    const first = await app.request('GET', '/v1/enclave/public-key', { key });
    expect(first.status).toBe(200);
    pem = first.body.publicKey;
    const der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
    expect(first.body.keyFingerprint).toBe(createHash('sha256').update(der).digest('hex'));
    expect(new Date(first.body.generatedAt).toISOString()).toBe(first.body.generatedAt);
    const second = await app.request('GET', '/v1/enclave/public-key', { key });
    expect(second.body).toEqual(first.body);
    expect((await app.request('GET', '/v1/enclave/public-key')).status).toBe(401);
  });

  it('makes a pregenerated wallet signable with only its id and the key', async () => {
    const { wallet, userShare } = await pregen('pregen-1');
    const before = await app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key, body: { message: 'hi' } });
    expect(before.status).toBe(409);
    expect(before.body.code).toBe('WALLET_NOT_MIGRATED');
    const readyBefore = await app.request('GET', '/v1/wallets?status=ready&limit=100', { key });
    expect(readyBefore.body.data.map((w: { id: string }) => w.id)).not.toContain(wallet.id);

    const migrated = await migrate(wallet.id, { encryptedPayload: payloadFor(wallet.id, userShare) });
    expect(migrated.status, JSON.stringify(migrated.body)).toBe(200);
    expect(migrated.body).toMatchObject({ id: wallet.id, address: wallet.address, status: 'ready' });

    const signed = await app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key, body: { message: 'hi' } });
    expect(signed.status).toBe(200);
    expect(await verifyMessage({ address: wallet.address as Hex, message: 'hi', signature: `0x${signed.body.signature}` })).toBe(true);
    const readyAfter = await app.request('GET', '/v1/wallets?status=ready&limit=100', { key });
    expect(readyAfter.body.data.map((w: { id: string }) => w.id)).toContain(wallet.id);

    const again = await migrate(wallet.id, { encryptedPayload: payloadFor(wallet.id, userShare) });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('WALLET_ALREADY_MIGRATED');
  });

  it('migrates an ED25519 wallet too', async () => {
    const { wallet, userShare } = await pregen('pregen-sol', 'SOLANA');
    const migrated = await migrate(wallet.id, { encryptedPayload: payloadFor(wallet.id, userShare, 'ED25519') });
    expect(migrated.status).toBe(200);
  });

  it('refuses bad payloads with 400 and stores nothing', async () => {
    const { wallet, userShare } = await pregen('pregen-bad');
    const other = await pregen('pregen-other');
    const cases: [string, unknown][] = [
      ['missing', {}],
      ['not a string', { encryptedPayload: { encryptedData: 'x' } }],
      ['extra field', { encryptedPayload: payloadFor(wallet.id, userShare), extra: 1 }],
      ['garbage', { encryptedPayload: 'not json' }],
      ['oversized', { encryptedPayload: 'x'.repeat(70_000) }],
      ['other wallet', { encryptedPayload: payloadFor(other.wallet.id, other.userShare) }],
      ['userId of another wallet', { encryptedPayload: payloadFor(wallet.id, userShare, 'DKLS', other.wallet.id) }],
      ['wrong scheme', { encryptedPayload: payloadFor(wallet.id, userShare, 'ED25519') }],
      ['wrong signer', { encryptedPayload: payloadFor(wallet.id, randomBytes(32).toString('hex')) }],
    ];
    for (const [name, body] of cases) {
      const response = await migrate(wallet.id, body);
      expect(response.status, name).toBe(400);
      expect(response.body.code, name).toBe('INVALID_REQUEST');
      expect(JSON.stringify(response.body)).not.toContain(userShare);
    }
    expect(await app.database.prisma.keyShare.count({ where: { walletId: wallet.id } })).toBe(1);
    const record = await app.database.prisma.wallet.findUnique({ where: { id: wallet.id } });
    expect(record?.custody).toBe('client');
  });

  it('answers 403 for a claimed wallet, 404 for another project, 409 for a REST wallet', async () => {
    const { wallet, userShare } = await pregen('claimed-before-migration');
    await app.services.users.signUp({ projectId, identifier: 'claimed-before-migration', identifierType: 'CUSTOM_ID' });
    const claimed = await migrate(wallet.id, { encryptedPayload: payloadFor(wallet.id, userShare) });
    expect(claimed.status).toBe(403);
    expect(claimed.body.code).toBe('WALLET_ALREADY_CLAIMED');

    const mine = await pregen('foreign-check');
    const stranger = (await app.createKey()).apiKey;
    const foreign = await app.request('POST', `/v1/wallets/${mine.wallet.id}/migrate-share`, { key: stranger, body: { encryptedPayload: payloadFor(mine.wallet.id, mine.userShare) } });
    expect(foreign.status).toBe(404);

    const rest = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: 'rest-made', userIdentifierType: 'CUSTOM_ID' } });
    const native = await migrate(rest.body.id, { encryptedPayload: payloadFor(rest.body.id, randomBytes(32).toString('hex')) });
    expect(native.status).toBe(409);
  });
});
