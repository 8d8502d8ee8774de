import { randomBytes } from 'node:crypto';
import { keygenParty } from '@wallet/threshold-ecdsa';
import { describe, expect, it } from 'vitest';
import { deriveAddress, formatPublicKey } from '../wallets/addresses.ts';
import { dklsShareSetupId, openDklsShare, sealDklsShare, secp256k1KeyOfWallet } from './dkls-share.ts';
import type { EncryptedShare, Kek } from './types.ts';

/** Both parties' shares of one key, after key generation (DKG + OT setup) in this process. */
function keygen() {
  const [a, b] = [keygenParty(1, new Uint8Array(8)), keygenParty(2, new Uint8Array(8))];
  let outbox = [a.first()];
  let started = false;
  while (!(a.done && b.done)) {
    const answers = started ? [] : [b.first()];
    started = true;
    for (const m of outbox) {
      const next = b.step(m);
      if (next) answers.push(next);
    }
    outbox = answers.map((m) => a.step(m)).filter((m): m is Uint8Array => m !== null);
  }
  return [a.result().share, b.result().share] as const;
}

describe('threshold ECDSA shares at rest', () => {
  const kek: Kek = { id: 'k1', key: randomBytes(32) };
  const keks = { byId: (id: string) => (id === kek.id ? kek : undefined) };
  const [p1] = keygen();
  const walletId = '4f0e2c1a-0000-4000-8000-000000000001';
  const sealed = sealDklsShare(kek, walletId, 'dkls-api', p1, 3);

  it('opens for its wallet, role and public key, with the OT setup id in the clear before the ciphertext', () => {
    expect(dklsShareSetupId(sealed)).toBe(p1.otSetupId);
    const opened = openDklsShare(keks, walletId, 'dkls-api', sealed, p1.publicKey);
    expect(Buffer.from(opened.encode()).equals(Buffer.from(p1.encode()))).toBe(true);
    opened.wipe();
  });

  it('does not open for another wallet, role, public key, epoch, OT setup id, KEK or a flipped byte', () => {
    const refuse = (share: EncryptedShare, options: { walletId?: string; role?: 'dkls-api' | 'dkls-signer'; publicKey?: Uint8Array } = {}) =>
      expect(() => openDklsShare(keks, options.walletId ?? walletId, options.role ?? 'dkls-api', share, options.publicKey ?? p1.publicKey)).toThrow('threshold ECDSA share cannot be opened');
    refuse(sealed, { walletId: '4f0e2c1a-0000-4000-8000-000000000002' });
    refuse({ ...sealed, role: 'dkls-signer' }, { role: 'dkls-signer' });
    const [other] = keygen();
    refuse(sealed, { publicKey: other.publicKey });
    refuse({ ...sealed, epoch: 4 });
    const swapped = Uint8Array.from(sealed.ciphertext);
    swapped.set(randomBytes(32), 0);
    refuse({ ...sealed, ciphertext: swapped });
    refuse({ ...sealed, kekId: 'k2' });
    const flipped = Uint8Array.from(sealed.ciphertext);
    flipped[100]! ^= 1;
    refuse({ ...sealed, ciphertext: flipped });
    refuse({ ...sealed, ciphertext: sealed.ciphertext.subarray(0, 40) });
  });

  it('seals only a share of its own participant', () => {
    expect(() => sealDklsShare(kek, walletId, 'dkls-signer', p1, 0)).toThrow(/another participant/);
  });

  it("reads a wallet's key from its stored public key only when it gives the wallet's address", () => {
    const evm = { type: 'EVM' as const, publicKey: formatPublicKey('EVM', p1.publicKey), address: deriveAddress('EVM', p1.publicKey) };
    expect(Buffer.from(secp256k1KeyOfWallet(evm)).equals(Buffer.from(p1.publicKey))).toBe(true);
    const cosmos = { type: 'COSMOS' as const, publicKey: formatPublicKey('COSMOS', p1.publicKey), address: deriveAddress('COSMOS', p1.publicKey, 'osmo') };
    expect(Buffer.from(secp256k1KeyOfWallet(cosmos)).equals(Buffer.from(p1.publicKey))).toBe(true);
    expect(() => secp256k1KeyOfWallet({ ...evm, address: '0x000000000000000000000000000000000000dEaD' })).toThrow(/gives its address/);
    expect(() => secp256k1KeyOfWallet({ ...evm, type: 'SOLANA' as never })).toThrow();
  });
});
