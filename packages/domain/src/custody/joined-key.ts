/**
 * The signing capability of a whole key (`KeyMaterial`): what the chain signers get where a wallet
 * key is joined, inside the signer process, for one signature. The secret stays in this closure;
 * the caller wipes it after the operation settles.
 */
import { ed25519PublicKey, ed25519Sign } from '../signing/ed25519.ts';
import { signSecp256k1 } from '../signing/secp256k1.ts';
import type { KeyMaterial } from '../signing/types.ts';
import { publicKeyFromSecret, type Scheme } from './keys.ts';

export function joinedKeyMaterial(scheme: Scheme, secret: Uint8Array, address: string): KeyMaterial {
  let publicKey: Uint8Array | undefined;
  const wrongScheme = (wanted: Scheme) => new Error(`a ${scheme} key cannot make a ${wanted} signature`);
  return {
    address,
    // Derived when first read (a secp256k1 derivation costs as much as a signature).
    get publicKey() {
      return (publicKey ??= scheme === 'ED25519' ? new Uint8Array(ed25519PublicKey(secret)) : publicKeyFromSecret(scheme, secret));
    },
    async signDigest(digest) {
      if (scheme !== 'DKLS') throw wrongScheme('DKLS');
      return signSecp256k1(digest, secret);
    },
    async signEd25519(message) {
      if (scheme !== 'ED25519') throw wrongScheme('ED25519');
      return new Uint8Array(ed25519Sign(secret, message));
    },
  };
}
