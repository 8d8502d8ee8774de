/**
 * The API refuses to start with a KEK that opens a key share, a service key or the enclave key:
 * those KEKs are the signer's alone. One sealed row per distinct KEK id is tried with every API
 * KEK (AES-GCM with that row's associated data: only the right key opens it), so a KEK copied
 * from the signer under another id is found too. Nothing that opens is kept or returned.
 */
import { openUnderKek } from '@wallet/domain/custody/kek-seal.ts';
import { dklsAssociatedData, dklsShareSetupId, ed25519KeyOfWallet, frostAssociatedData, secp256k1KeyOfWallet, type Kek, type WalletType } from '@wallet/domain';
import type { Database } from '@wallet/db';

interface SealedRow {
  what: string;
  associatedData: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
}

async function sealedSamples(database: Database): Promise<SealedRow[]> {
  // The signer's shares: XOR halves, FROST and DKLs23 participant 2 (the API's own frost-api, dkls-api and the recovery rows are not the signer's).
  const shares = await database.query<{ wallet_id: string; role: string; epoch: number; iv: Uint8Array; ciphertext: Uint8Array; type: string; public_key: string; address: string }>(
    `SELECT DISTINCT ON (s.kek_id, s.role) s.wallet_id, s.role, s.epoch, s.iv, s.ciphertext, w.type, w.public_key, w.address
       FROM key_shares s JOIN wallets w ON w.id = s.wallet_id
      WHERE s.role IN ('user', 'service', 'frost-signer', 'dkls-signer') ORDER BY s.kek_id, s.role, s.wallet_id`,
  );
  const serviceKeys = await database.query<{ purpose: string; chain_id: number; address: string; iv: Uint8Array; encrypted_private_key: Uint8Array }>(
    'SELECT DISTINCT ON (kek_id) purpose, chain_id, address, iv, encrypted_private_key FROM service_keys ORDER BY kek_id, purpose, chain_id',
  );
  const enclave = await database.query<{ id: string; iv: Uint8Array; encrypted_private_key: Uint8Array }>(
    'SELECT DISTINCT ON (kek_id) id, iv, encrypted_private_key FROM enclave_keys ORDER BY kek_id, id',
  );
  return [
    ...shares.map((r) => ({
      what: `the ${r.role} share of wallet ${r.wallet_id}`,
      associatedData: shareAssociatedData(r),
      iv: r.iv,
      // A DKLs23 share's stored bytes start with its OT setup id in the clear.
      ciphertext: r.role === 'dkls-signer' ? r.ciphertext.subarray(32) : r.ciphertext,
    })),
    ...serviceKeys.map((r) => ({ what: `the ${r.purpose} key of chain ${r.chain_id}`, associatedData: `service-key:${r.purpose}:${r.chain_id}:${r.address}`, iv: r.iv, ciphertext: r.encrypted_private_key })),
    ...enclave.map((r) => ({ what: 'the enclave key', associatedData: `enclave-key:${r.id}`, iv: r.iv, ciphertext: r.encrypted_private_key })),
  ];
}

/** As shares.ts and frost-share.ts bind them. */
function shareAssociatedData(r: { wallet_id: string; role: string; epoch: number; type: string; public_key: string; address: string; ciphertext: Uint8Array }): string {
  if (r.role === 'frost-signer') return frostAssociatedData(r.wallet_id, 'frost-signer', ed25519KeyOfWallet(r.type as WalletType, r.public_key), Number(r.epoch));
  if (r.role === 'dkls-signer') {
    const publicKey = secp256k1KeyOfWallet({ type: r.type as WalletType, address: r.address, publicKey: r.public_key });
    return dklsAssociatedData(r.wallet_id, 'dkls-signer', publicKey, Number(r.epoch), dklsShareSetupId(r)!);
  }
  return Number(r.epoch) === 0 ? `${r.wallet_id}:${r.role}` : `${r.wallet_id}:${r.role}:${r.epoch}`;
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
