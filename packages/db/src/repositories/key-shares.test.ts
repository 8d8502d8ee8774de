import { randomBytes, randomUUID } from 'node:crypto';
import type { EncryptedShare, ShareRole } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createStores } from './index.ts';

const share = (role: ShareRole, epoch = 0): EncryptedShare => ({ role, epoch, kekId: `kek-${role}`, iv: new Uint8Array(randomBytes(12)), ciphertext: new Uint8Array(randomBytes(48)) });

describe.each(testDatabaseKinds)('key shares: FROST roles, epochs, replacement in one transaction (%s)', (kind) => {
  let db: Database;
  let projectId: string;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
    const partner = await db.prisma.partner.create({ data: { id: randomUUID(), name: `p-${randomUUID()}` } });
    projectId = (await db.prisma.project.create({ data: { id: randomUUID(), partnerId: partner.id, name: 'p' } })).id;
  });
  afterAll(() => db?.close());

  async function newWallet(shares: EncryptedShare[]) {
    const stores = createStores(db);
    const id = randomUUID();
    const wallet = {
      id, projectId, type: 'SOLANA' as const, scheme: 'ED25519' as const, address: `addr-${id}`, publicKey: `pk-${id}`, status: 'ready' as const,
      userIdentifier: id, userIdentifierType: 'CUSTOM_ID' as const, cosmosPrefix: null, custody: 'api_key' as const, custodyMode: 'threshold' as const,
    };
    await stores.wallets.create(wallet, shares, { projectId, apiKeyId: null, walletId: id, requestId: null, action: 'wallet.create', details: {} });
    return id;
  }

  it('creates a wallet with its four FROST shares in one statement and reads them back with their epochs', async () => {
    const shares = [share('frost-api'), share('frost-signer'), share('recovery-api'), share('recovery-signer')];
    const id = await newWallet(shares);
    const stores = createStores(db);
    const found = await stores.wallets.findWithShares(projectId, id);
    expect(found?.shares.map((s) => `${s.role}@${s.epoch}`).sort()).toEqual(['frost-api@0', 'frost-signer@0', 'recovery-api@0', 'recovery-signer@0']);
    const read = (await stores.wallets.findShares(id)).find((s) => s.role === 'frost-api')!;
    expect(Buffer.from(read.ciphertext).equals(Buffer.from(shares[0]!.ciphertext))).toBe(true);
  });

  it('the database refuses an unknown role and a negative epoch', async () => {
    await expect(newWallet([share('user'), share('other' as ShareRole)])).rejects.toThrow();
    await expect(newWallet([share('user', -1), share('service')])).rejects.toThrow();
  });

  it('replaceShares deletes the old rows and inserts the new ones with the audit row and the custody mode atomically; a stale replacement writes nothing', async () => {
    const id = await newWallet([share('user'), share('service')]);
    const stores = createStores(db);
    const audit = { projectId, apiKeyId: null, walletId: id, requestId: null, action: 'wallet.custody.convert', details: { epoch: 1 } };
    const next = [share('frost-api', 1), share('frost-signer', 1), share('recovery-signer', 1)];
    const remove = [{ role: 'user' as const, epoch: 0 }, { role: 'service' as const, epoch: 0 }];
    expect(await stores.keyMaintenance.replaceShares(id, remove, next, audit, 'threshold')).toBe(true);
    expect((await stores.wallets.findById(id))?.custodyMode).toBe('threshold');
    expect((await stores.wallets.findShares(id)).map((s) => `${s.role}@${s.epoch}`).sort()).toEqual(['frost-api@1', 'frost-signer@1', 'recovery-signer@1']);
    // The same replacement again (another run got there first): nothing written, no second audit row.
    expect(await stores.keyMaintenance.replaceShares(id, remove, [share('frost-api', 2)], audit)).toBe(false);
    expect((await stores.wallets.findShares(id)).map((s) => `${s.role}@${s.epoch}`).sort()).toEqual(['frost-api@1', 'frost-signer@1', 'recovery-signer@1']);
    expect(await db.prisma.auditLog.count({ where: { walletId: id, action: 'wallet.custody.convert' } })).toBe(1);
    const listed = (await stores.keyMaintenance.list(null, 1000)).find((w) => w.wallet.id === id);
    expect(listed?.shares).toHaveLength(3);
    expect((await stores.keyMaintenance.get(id))?.shares).toEqual(listed?.shares);
    expect(await stores.keyMaintenance.list(null, 1000, '00000000-0000-4000-8000-000000000000')).toEqual([]);
  });
});
