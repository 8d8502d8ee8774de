/**
 * The 32-byte Ed25519 key of an ED25519 wallet from its stored `publicKey` (base58 for SOLANA, the
 * `G…` StrKey for STELLAR, base64 for SUI; see wallets/addresses.ts), checked by formatting it back.
 * Public data: it names which group key a sealed FROST share must have been sealed for, and the
 * share's authenticated associated data decides whether it was.
 */
import { getBase58Encoder } from '@solana/kit';
import { deriveAddress, formatPublicKey, type WalletType } from '../wallets/addresses.ts';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Decode(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

export function ed25519KeyOfWallet(type: WalletType, publicKey: string): Uint8Array {
  let key: Uint8Array;
  try {
    if (type === 'SOLANA') key = new Uint8Array(getBase58Encoder().encode(publicKey));
    else if (type === 'STELLAR') key = base32Decode(publicKey).subarray(1, 33);
    else if (type === 'SUI') key = new Uint8Array(Buffer.from(publicKey, 'base64'));
    else throw new Error('scheme');
    if (key.length !== 32 || formatPublicKey(type, key) !== publicKey) throw new Error('format');
  } catch {
    throw new Error(`the stored public key is not a ${type} Ed25519 key`);
  }
  return new Uint8Array(key);
}

/** Checked group keys by type, stored key and address (public data; every signature of a wallet needs it on both sides). */
const checkedKeys = new Map<string, Uint8Array>();
const CHECKED_KEYS_MAX = 10_000;

/** The group key a FROST wallet's shares must be sealed for: its stored public key, which must also give its address. */
export function frostGroupKey(wallet: { type: WalletType; address: string; publicKey?: string }): Uint8Array {
  if (!wallet.publicKey) throw new Error('the wallet has no stored public key');
  const cacheKey = `${wallet.type}\n${wallet.publicKey}\n${wallet.address}`;
  const known = checkedKeys.get(cacheKey);
  if (known) return Uint8Array.from(known);
  const key = ed25519KeyOfWallet(wallet.type, wallet.publicKey);
  if (deriveAddress(wallet.type, key) !== wallet.address) throw new Error("the wallet's address is not derived from its public key");
  if (checkedKeys.size >= CHECKED_KEYS_MAX) checkedKeys.clear();
  checkedKeys.set(cacheKey, Uint8Array.from(key));
  return key;
}
