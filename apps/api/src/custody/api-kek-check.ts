/**
 * The API refuses to start with a KEK that opens a key share, a service key or the enclave key:
 * those KEKs are the signer's alone. One sealed row per distinct KEK id is tried with every API
 * KEK (AES-GCM with that row's associated data: only the right key opens it), so a KEK copied
 * from the signer under another id is found too. Nothing that opens is kept or returned.
 */
import { openUnderKek } from '@wallet/domain/custody/kek-seal.ts';
import type { Kek } from '@wallet/domain';
import type { Database } from '@wallet/db';

interface SealedRow {
  what: string;
  associatedData: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
}

async function sealedSamples(database: Database): Promise<SealedRow[]> {
  const shares = await database.query<{ wallet_id: string; role: string; iv: Uint8Array; ciphertext: Uint8Array }>(
    'SELECT DISTINCT ON (kek_id, role) wallet_id, role, iv, ciphertext FROM key_shares ORDER BY kek_id, role, wallet_id',
  );
  const serviceKeys = await database.query<{ purpose: string; chain_id: number; address: string; iv: Uint8Array; encrypted_private_key: Uint8Array }>(
    'SELECT DISTINCT ON (kek_id) purpose, chain_id, address, iv, encrypted_private_key FROM service_keys ORDER BY kek_id, purpose, chain_id',
  );
  const enclave = await database.query<{ id: string; iv: Uint8Array; encrypted_private_key: Uint8Array }>(
    'SELECT DISTINCT ON (kek_id) id, iv, encrypted_private_key FROM enclave_keys ORDER BY kek_id, id',
  );
  return [
    ...shares.map((r) => ({ what: `the ${r.role} share of wallet ${r.wallet_id}`, associatedData: `${r.wallet_id}:${r.role}`, iv: r.iv, ciphertext: r.ciphertext })),
    ...serviceKeys.map((r) => ({ what: `the ${r.purpose} key of chain ${r.chain_id}`, associatedData: `service-key:${r.purpose}:${r.chain_id}:${r.address}`, iv: r.iv, ciphertext: r.encrypted_private_key })),
    ...enclave.map((r) => ({ what: 'the enclave key', associatedData: `enclave-key:${r.id}`, iv: r.iv, ciphertext: r.encrypted_private_key })),
  ];
}

/** Throws naming the API KEK (by id) and what it opens; never a key. */
export async function assertApiKeksOpenNoKey(database: Database, keks: Kek[]): Promise<void> {
  for (const sample of await sealedSamples(database)) {
    for (const kek of keks) {
      let opened: Uint8Array | undefined;
      try {
        opened = openUnderKek(kek, sample.associatedData, new Uint8Array(sample.iv), new Uint8Array(sample.ciphertext));
      } catch {
        continue;
      } finally {
        opened?.fill(0);
      }
      throw new Error(`API KEK ${kek.id} opens ${sample.what}: that KEK is the signer's; give the API its own (API_KEKS) and keep the share KEKs in the signer only`);
    }
  }
}
