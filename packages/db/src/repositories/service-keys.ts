import type { ServiceKeyPurpose, ServiceKeyRow, ServiceKeyStore } from '@wallet/domain';
import type { Database } from '../database.ts';

interface Row {
  purpose: string;
  chainId: number;
  address: string;
  kekId: string;
  iv: Uint8Array;
  encryptedPrivateKey: Uint8Array;
  createdAt: Date;
}

const toRow = (row: Row): ServiceKeyRow => ({
  purpose: row.purpose as ServiceKeyPurpose,
  chainId: row.chainId,
  address: row.address as ServiceKeyRow['address'],
  kekId: row.kekId,
  iv: new Uint8Array(row.iv),
  encryptedPrivateKey: new Uint8Array(row.encryptedPrivateKey),
  createdAt: row.createdAt,
});

export function createServiceKeyStore({ prisma }: Database): ServiceKeyStore {
  const find = async (purpose: ServiceKeyPurpose, chainId: number) => {
    const row = await prisma.serviceKey.findUnique({ where: { purpose_chainId: { purpose, chainId } } });
    return row ? toRow(row) : null;
  };
  return {
    find,

    async insertOrGet(key) {
      // ON CONFLICT DO NOTHING: the primary key (purpose, chain) makes the first insert win, whatever the concurrency.
      await prisma.serviceKey.createMany({
        data: [{ ...key, iv: Buffer.from(key.iv), encryptedPrivateKey: Buffer.from(key.encryptedPrivateKey) }],
        skipDuplicates: true,
      });
      return (await find(key.purpose, key.chainId))!;
    },

    async reseal(purpose, chainId, fromKekId, sealed) {
      const { count } = await prisma.serviceKey.updateMany({
        where: { purpose, chainId, kekId: fromKekId },
        data: { kekId: sealed.kekId, iv: Buffer.from(sealed.iv), encryptedPrivateKey: Buffer.from(sealed.encryptedPrivateKey) },
      });
      return count === 1;
    },
  };
}
