import { generateKeyPairSync } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { dealKeyShares } from '@wallet/threshold-ecdsa';
import { describe, expect, it } from 'vitest';
import { openFromRecovery, parseRecoveryPublicKey, sealToRecovery } from './recovery-seal.ts';

const WALLET = '00000000-0000-4000-8000-000000000001';

describe("an imported threshold ECDSA key's participant 3, sealed to the recovery key", () => {
  const pair = generateKeyPairSync('x25519');
  const recovery = parseRecoveryPublicKey(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  const dealt = dealKeyShares(secp256k1.utils.randomSecretKey());
  const sealed = sealToRecovery(recovery, WALLET, 'recovery-signer', dealt.publicKey, 1, { kind: 'ecdsa-dealt-share', share: dealt.offline });

  it('opens offline as p(3) with Y_3, which p(3)·G matches', () => {
    const opened = openFromRecovery(pair.privateKey, WALLET, sealed, dealt.publicKey);
    expect(opened.kind).toBe('ecdsa-dealt-share');
    if (opened.kind !== 'ecdsa-dealt-share') return;
    expect(Buffer.from(opened.share.share).equals(Buffer.from(dealt.offline.share))).toBe(true);
    expect(Buffer.from(opened.share.verifyingShare).equals(Buffer.from(dealt.offline.verifyingShare))).toBe(true);
    expect(Buffer.from(secp256k1.getPublicKey(opened.share.share, true)).equals(Buffer.from(opened.share.verifyingShare))).toBe(true);
  });

  it('does not open for another public key or epoch, and refuses a malformed item', () => {
    expect(() => openFromRecovery(pair.privateKey, WALLET, sealed, dealKeyShares(secp256k1.utils.randomSecretKey()).publicKey)).toThrow();
    expect(() => openFromRecovery(pair.privateKey, WALLET, { ...sealed, epoch: 2 }, dealt.publicKey)).toThrow();
    expect(() => sealToRecovery(recovery, WALLET, 'recovery-signer', dealt.publicKey, 1, { kind: 'ecdsa-dealt-share', share: { share: new Uint8Array(31), verifyingShare: dealt.offline.verifyingShare } })).toThrow(/32-byte/);
  });
});
