import { randomBytes } from 'node:crypto';
import { createServiceKeys, type Kek, type KekProvider, type ServiceKeyRow } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { openUnderKek } from '@wallet/domain/custody/kek-seal.ts';
import {
  hashMessage,
  keccak256,
  parseEther,
  recoverAddress,
  recoverTransactionAddress,
  toHex,
  verifyMessage,
  type Hex,
  type TransactionSerializableEIP7702,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, openDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createServiceKeyStore } from './service-keys.ts';

const kek = (id: string): Kek => ({ id, key: randomBytes(32) });
/** The first KEK is current, every one is readable (the env provider's rotation order). */
function keksOf(...keks: Kek[]): KekProvider {
  return { current: () => keks[0]!, byId: (id) => keks.find((k) => k.id === id) };
}
const clock = { now: () => new Date('2027-03-01T12:00:00.000Z') };
const hash = (text: string) => keccak256(toHex(text));
let nextChain = 70_000;

describe.each(testDatabaseKinds)('service keys (%s)', (kind) => {
  let database: Database;
  const storedRow = async (purpose: string, chainId: number): Promise<ServiceKeyRow> => {
    const row = await database.prisma.serviceKey.findUniqueOrThrow({ where: { purpose_chainId: { purpose, chainId } } });
    return { ...row, iv: new Uint8Array(row.iv), encryptedPrivateKey: new Uint8Array(row.encryptedPrivateKey) } as ServiceKeyRow;
  };
  const aad = (row: ServiceKeyRow) => `service-key:${row.purpose}:${row.chainId}:${row.address}`;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('creates one key per purpose and chain on first use and reuses it; the row holds it only sealed', async () => {
    const keks = keksOf(kek('svc-1'));
    const keys = createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks }), clock });
    const chainId = nextChain++;
    const sponsor = await keys.ensureServiceKey('sponsor', chainId);
    expect(sponsor.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await keys.ensureServiceKey('sponsor', chainId)).toEqual(sponsor);
    // Another process (its own cache) finds the same key.
    expect(await createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks }), clock }).ensureServiceKey('sponsor', chainId)).toEqual(sponsor);
    const relayer = await keys.ensureServiceKey('relayer', chainId);
    const otherChain = await keys.ensureServiceKey('sponsor', chainId + 1);
    expect(new Set([sponsor.address, relayer.address, otherChain.address]).size).toBe(3);
    expect(await database.prisma.serviceKey.count({ where: { chainId } })).toBe(2);

    const row = await storedRow('sponsor', chainId);
    expect(row).toMatchObject({ purpose: 'sponsor', chainId, address: sponsor.address, kekId: 'svc-1' });
    const secret = openUnderKek(keks.current('service'), aad(row), row.iv, row.encryptedPrivateKey);
    expect(privateKeyToAddress(toHex(secret))).toBe(sponsor.address);
    const stored = JSON.stringify(await database.query('SELECT * FROM service_keys WHERE chain_id = $1', [chainId]));
    const plain = Buffer.from(secret);
    expect(Buffer.from(row.encryptedPrivateKey).includes(plain)).toBe(false);
    expect(stored).not.toContain(plain.toString('hex'));
    expect(stored).not.toContain(plain.toString('base64').slice(0, 40));
  });

  it('ends with one key when processes ensure it at the same time', async () => {
    const chainId = nextChain++;
    const keks = keksOf(kek('svc-1'));
    // On PostgreSQL two pools on one database, as two processes have; PGlite is single-process.
    const scratch = kind === 'postgres' ? await createScratchDatabase(process.env.TEST_DATABASE_URL!, 't') : null;
    const pools = scratch ? await Promise.all([openDatabase({ databaseUrl: scratch.url, poolSize: 5 }), openDatabase({ databaseUrl: scratch.url, poolSize: 5, migrate: false })]) : [database];
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => createServiceKeys({ store: createServiceKeyStore(pools[i % pools.length]!), vault: createLocalKeyVault({ keks }), clock }).ensureServiceKey('relayer', chainId)),
      );
      expect(new Set(results.map((r) => r.address)).size).toBe(1);
      expect(await pools[0]!.prisma.serviceKey.count({ where: { purpose: 'relayer', chainId } })).toBe(1);
    } finally {
      for (const pool of scratch ? pools : []) await pool.close();
      await scratch?.drop();
    }
  });

  it('signs hashes (raw), sponsorships (EIP-191 over the raw hash) and relayer transactions that viem recovers to the key', async () => {
    const keys = createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks: keksOf(kek('svc-1')) }), clock });
    const chainId = nextChain++;
    const sponsor = await keys.ensureServiceKey('sponsor', chainId);
    const relayer = await keys.ensureServiceKey('relayer', chainId);
    const digest = hash('user operation');

    const raw = await keys.signHash('sponsor', chainId, digest);
    expect(raw).toMatch(/^0x[0-9a-f]{130}$/);
    expect(await recoverAddress({ hash: digest, signature: raw })).toBe(sponsor.address);

    const sponsorship = await keys.signSponsorship(chainId, digest);
    expect(await verifyMessage({ address: sponsor.address, message: { raw: digest }, signature: sponsorship })).toBe(true);
    expect(await recoverAddress({ hash: hashMessage({ raw: digest }), signature: sponsorship })).toBe(sponsor.address);
    expect(await verifyMessage({ address: relayer.address, message: { raw: digest }, signature: sponsorship })).toBe(false);

    const owner = privateKeyToAccount(generatePrivateKey());
    const authorization = await owner.signAuthorization({ chainId, address: '0xe6Cae83BdE06E4c305530e199D7217f42808555B', nonce: 0 });
    const transaction: TransactionSerializableEIP7702 = {
      type: 'eip7702',
      chainId,
      nonce: 3,
      to: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
      data: '0x765e827f',
      gas: 300_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
      value: 0n,
      authorizationList: [authorization],
    };
    const signed = await keys.signRelayerTransaction(chainId, transaction);
    expect(signed.startsWith('0x04')).toBe(true);
    expect(await recoverTransactionAddress({ serializedTransaction: signed as Hex & `0x04${string}` })).toBe(relayer.address);
    const legacy = await keys.signRelayerTransaction(chainId, { type: 'eip1559', chainId, nonce: 0, to: relayer.address, value: parseEther('0'), gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
    expect(await recoverTransactionAddress({ serializedTransaction: legacy as `0x02${string}` })).toBe(relayer.address);

    await expect(keys.signRelayerTransaction(chainId + 1, transaction)).rejects.toThrow(/chainId/);
    await expect(keys.signHash('sponsor', chainId, '0x1234')).rejects.toThrow(/32-byte hash/);
    await expect(keys.ensureServiceKey('paymaster' as never, chainId)).rejects.toThrow(/purpose/);
    await expect(keys.ensureServiceKey('sponsor', 0)).rejects.toThrow(/chain id/);
  });

  it('after a KEK rotation, a key sealed under the old KEK still signs and is sealed again under the new one', async () => {
    const chainId = nextChain++;
    const old = kek('svc-2026');
    const before = createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks: keksOf(old) }), clock });
    const { address } = await before.ensureServiceKey('sponsor', chainId);
    expect((await storedRow('sponsor', chainId)).kekId).toBe('svc-2026');

    const fresh = kek('svc-2027');
    const rotated = keksOf(fresh, old);
    const after = createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks: rotated }), clock });
    const digest = hash('after rotation');
    expect(await recoverAddress({ hash: digest, signature: await after.signHash('sponsor', chainId, digest) })).toBe(address);
    const row = await storedRow('sponsor', chainId);
    expect(row.kekId).toBe('svc-2027');
    expect(privateKeyToAddress(toHex(openUnderKek(fresh, aad(row), row.iv, row.encryptedPrivateKey)))).toBe(address);

    // The old KEK can now be retired: the key opens with the new one alone.
    const retired = createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks: keksOf(fresh) }), clock });
    expect(await recoverAddress({ hash: digest, signature: await retired.signHash('sponsor', chainId, digest) })).toBe(address);
    // A process that still has the old current KEK first reads it under the new one, which it lacks: one plain error.
    await expect(createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks: keksOf(old) }), clock }).signHash('sponsor', chainId, digest)).rejects.toThrow(
      new Error('service key cannot be decrypted'),
    );
  });

  it('refuses a sealed key moved to another purpose or chain with one plain error', async () => {
    const keks = keksOf(kek('svc-1'));
    const keys = createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks }), clock });
    const chainId = nextChain++;
    await keys.ensureServiceKey('sponsor', chainId);
    await database.query("UPDATE service_keys SET purpose = 'relayer' WHERE purpose = 'sponsor' AND chain_id = $1", [chainId]);
    const fresh = createServiceKeys({ store: createServiceKeyStore(database), vault: createLocalKeyVault({ keks }), clock });
    await expect(fresh.signHash('relayer', chainId, hash('x'))).rejects.toThrow(new Error('service key cannot be decrypted'));
  });
});
