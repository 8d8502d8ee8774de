import type { ServiceKeyPurpose, ServiceKeyRow, ServiceKeyStore } from '@wallet/domain';
import type { Database } from '../database.ts';

interface Row {
  purpose: string;
  chain_id: number;
  address: string;
  kek_id: string;
  iv: Uint8Array;
  encrypted_private_key: Uint8Array;
  created_at: Date;
}

const toRow = (row: Row): ServiceKeyRow => ({
  purpose: row.purpose as ServiceKeyPurpose,
  chainId: row.chain_id,
  address: row.address as ServiceKeyRow['address'],
  kekId: row.kek_id,
  iv: new Uint8Array(row.iv),
  encryptedPrivateKey: new Uint8Array(row.encrypted_private_key),
  createdAt: new Date(row.created_at),
});

const COLUMNS = 'purpose, chain_id, address, kek_id, iv, encrypted_private_key, created_at';

export function createServiceKeyStore({ prisma, query }: Database): ServiceKeyStore {
  // On the driver: local mode reads (and on the first start creates) the devnet's keys at every
  // start, and a Prisma query there would load Prisma's query compiler (WebAssembly, ~45 MB
  // resident, about half a second) into a process at rest.
  const find = async (purpose: ServiceKeyPurpose, chainId: number) => {
    const [row] = await query<Row>(`SELECT ${COLUMNS} FROM service_keys WHERE purpose = $1 AND chain_id = $2`, [purpose, chainId]);
    return row ? toRow(row) : null;
  };
  return {
    find,

    async insertOrGet(key) {
      // ON CONFLICT DO NOTHING: the primary key (purpose, chain) makes the first insert win, whatever the concurrency.
      await query(`INSERT INTO service_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, [
        key.purpose,
        key.chainId,
        key.address,
        key.kekId,
        Buffer.from(key.iv),
        Buffer.from(key.encryptedPrivateKey),
        key.createdAt,
      ]);
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
