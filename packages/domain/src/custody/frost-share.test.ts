import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { importSeed } from '@wallet/frost-ed25519';
import { describe, expect, it } from 'vitest';
import { openFrostShare, sealFrostShare } from './frost-share.ts';
import { openFromRecovery, parseRecoveryPublicKey, sealToRecovery } from './recovery-seal.ts';
import type { EncryptedShare, Kek } from './types.ts';

/** Each binding of a sealed FROST share and of a recovery seal, proven by changing the one thing it guards. */
const WALLET = '6f1d6d2e-6a53-4a4b-9f55-0b5c3f1f2a11';
const OTHER_WALLET = '0b7a2d7c-0d3e-4c55-8f3a-2a0b1c9d8e77';
const kek: Kek = { id: 'k1', key: randomBytes(32) };
const keks = { byId: (id: string) => (id === kek.id ? kek : undefined) };
const split = importSeed(randomBytes(32));
const other = importSeed(randomBytes(32));
const share = (i: number) => ({ keyPackage: split.keyPackages[i]!, publicKeyPackage: split.publicKeyPackage });
const group = split.publicKeyPackage.groupPublicKey;
const flip = (bytes: Uint8Array, at: number) => Uint8Array.from(bytes, (b, i) => (i === at ? b ^ 1 : b));

describe('a sealed FROST share', () => {
  const sealed = sealFrostShare(kek, WALLET, 'frost-signer', share(1), 3);

  it('opens for its wallet, role and group key, with its epoch', () => {
    const opened = openFrostShare(keks, WALLET, 'frost-signer', sealed, group);
    expect(opened.keyPackage.identifier).toBe(2);
    expect(Buffer.from(opened.keyPackage.signingShare).equals(Buffer.from(split.keyPackages[1]!.signingShare))).toBe(true);
  });

  it.each<[string, () => unknown]>([
    ['another wallet', () => openFrostShare(keks, OTHER_WALLET, 'frost-signer', sealed, group)],
    ['another role', () => openFrostShare(keks, WALLET, 'frost-api', { ...sealed, role: 'frost-api' }, group)],
    ['the role relabelled only', () => openFrostShare(keks, WALLET, 'frost-api', sealed, group)],
    ['another group key', () => openFrostShare(keks, WALLET, 'frost-signer', sealed, other.publicKeyPackage.groupPublicKey)],
    ['another epoch', () => openFrostShare(keks, WALLET, 'frost-signer', { ...sealed, epoch: 2 }, group)],
    ['a flipped ciphertext bit', () => openFrostShare(keks, WALLET, 'frost-signer', { ...sealed, ciphertext: flip(sealed.ciphertext, 5) }, group)],
    ['a flipped tag bit', () => openFrostShare(keks, WALLET, 'frost-signer', { ...sealed, ciphertext: flip(sealed.ciphertext, sealed.ciphertext.length - 1) }, group)],
    ['a flipped IV bit', () => openFrostShare(keks, WALLET, 'frost-signer', { ...sealed, iv: flip(sealed.iv, 0) }, group)],
    ['an unknown KEK', () => openFrostShare(keks, WALLET, 'frost-signer', { ...sealed, kekId: 'k2' }, group)],
  ])('does not open with %s (one plain error)', (_name, open) => {
    expect(open).toThrowError(new Error('FROST share cannot be opened'));
  });

  it("a participant 1 share sealed as the signer's role does not open as the signer's share", () => {
    const misfiled = sealFrostShare(kek, WALLET, 'frost-signer', share(0), 0);
    expect(() => openFrostShare(keks, WALLET, 'frost-signer', misfiled, group)).toThrowError('FROST share cannot be opened');
  });
});

describe('a seal to the offline recovery key', () => {
  const pair = generateKeyPairSync('x25519');
  const recovery = parseRecoveryPublicKey(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  const item = { kind: 'key-package' as const, keyPackage: split.keyPackages[2]!, publicKeyPackage: split.publicKeyPackage };
  const sealed: EncryptedShare = sealToRecovery(recovery, WALLET, 'recovery-signer', group, 1, item);

  it('opens with the recovery private key, for its wallet and group key', () => {
    const opened = openFromRecovery(pair.privateKey, WALLET, sealed, group);
    expect(opened.kind).toBe('key-package');
    if (opened.kind === 'key-package') expect(Buffer.from(opened.keyPackage.signingShare).equals(Buffer.from(split.keyPackages[2]!.signingShare))).toBe(true);
  });

  it.each<[string, () => unknown]>([
    ['another wallet', () => openFromRecovery(pair.privateKey, OTHER_WALLET, sealed, group)],
    ['another group key', () => openFromRecovery(pair.privateKey, WALLET, sealed, other.publicKeyPackage.groupPublicKey)],
    ['another epoch', () => openFromRecovery(pair.privateKey, WALLET, { ...sealed, epoch: 2 }, group)],
    ['another role', () => openFromRecovery(pair.privateKey, WALLET, { ...sealed, role: 'recovery-api' }, group)],
    ['a flipped ciphertext bit', () => openFromRecovery(pair.privateKey, WALLET, { ...sealed, ciphertext: flip(sealed.ciphertext, 40) }, group)],
    ['a flipped ephemeral key bit', () => openFromRecovery(pair.privateKey, WALLET, { ...sealed, ciphertext: flip(sealed.ciphertext, 3) }, group)],
    ['another private key', () => openFromRecovery(generateKeyPairSync('x25519').privateKey, WALLET, sealed, group)],
  ])('does not open with %s', (_name, open) => {
    expect(open).toThrow();
  });
});
