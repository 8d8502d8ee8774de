import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey } from './keys.ts';
import {
  decryptShare,
  encryptShare,
  joinShares,
  splitSecret,
  withWalletSecret,
  withWalletSecretAsync,
  type EncryptedShare,
  type Kek,
  type KekProvider,
} from './shares.ts';

function testKeks(): KekProvider & { retire(role: 'user' | 'service'): void } {
  const all = new Map<string, Kek>();
  const current: Record<'user' | 'service', Kek> = {} as Record<'user' | 'service', Kek>;
  let n = 0;
  const rotate = (role: 'user' | 'service') => {
    const kek = { id: `test-${role}-${n++}`, key: randomBytes(32) };
    all.set(kek.id, kek);
    current[role] = kek;
  };
  rotate('user');
  rotate('service');
  return { current: (role) => current[role as 'user' | 'service'], byId: (id) => all.get(id), retire: rotate };
}

const WALLET = '6f1d6d2e-6a53-4a4b-9f55-0b5c3f1f2a11';
const OTHER_WALLET = '0b7a2d7c-0d3e-4c55-8f3a-2a0b1c9d8e77';

function encryptedWallet(keks: KekProvider, walletId = WALLET) {
  const key = generateKey('DKLS');
  const { user, service } = splitSecret(key.secret);
  const shares = [encryptShare(keks, walletId, 'user', user), encryptShare(keks, walletId, 'service', service)];
  return { key, user, service, shares };
}

describe('splitSecret / joinShares', () => {
  it('round-trips and neither share equals the secret', () => {
    for (let i = 0; i < 50; i++) {
      const secret = new Uint8Array(randomBytes(32));
      const { user, service } = splitSecret(secret);
      expect(user.length).toBe(32);
      expect(service.length).toBe(32);
      expect(user).not.toEqual(secret);
      expect(service).not.toEqual(secret);
      expect(joinShares(user, service)).toEqual(secret);
      expect(joinShares(service, user)).toEqual(secret);
    }
  });

  it('uses a fresh pad each time', () => {
    const secret = new Uint8Array(randomBytes(32));
    expect(splitSecret(secret).user).not.toEqual(splitSecret(secret).user);
  });

  it('rejects wrong lengths', () => {
    expect(() => splitSecret(new Uint8Array(31))).toThrow();
    expect(() => joinShares(new Uint8Array(32), new Uint8Array(16))).toThrow();
  });
});

describe('encryptShare / decryptShare', () => {
  it('round-trips with a 12-byte IV and a tagged ciphertext', () => {
    const keks = testKeks();
    const share = new Uint8Array(randomBytes(32));
    const encrypted = encryptShare(keks, WALLET, 'user', share);
    expect(encrypted.role).toBe('user');
    expect(encrypted.kekId).toBe(keks.current('user').id);
    expect(encrypted.iv.length).toBe(12);
    expect(encrypted.ciphertext.length).toBe(32 + 16);
    expect(Buffer.from(encrypted.ciphertext).includes(Buffer.from(share))).toBe(false);
    expect(decryptShare(keks, WALLET, encrypted)).toEqual(share);
    // Random IVs: encrypting twice differs.
    expect(encryptShare(keks, WALLET, 'user', share).ciphertext).not.toEqual(encrypted.ciphertext);
  });

  it('encrypts user and service shares under different KEKs', () => {
    const keks = testKeks();
    const { shares } = encryptedWallet(keks);
    expect(shares[0]!.kekId).not.toBe(shares[1]!.kekId);
  });

  it('fails with the wrong wallet id (AAD)', () => {
    const keks = testKeks();
    const { shares } = encryptedWallet(keks);
    expect(() => decryptShare(keks, OTHER_WALLET, shares[0]!)).toThrow('key share cannot be decrypted');
  });

  it('fails with the wrong role (AAD)', () => {
    const keks = testKeks();
    const { shares } = encryptedWallet(keks);
    const relabelled: EncryptedShare = { ...shares[0]!, role: 'service' };
    expect(() => decryptShare(keks, WALLET, relabelled)).toThrow('key share cannot be decrypted');
  });

  it('fails on tampered ciphertext, tag or IV, and on an unknown KEK', () => {
    const keks = testKeks();
    const { shares } = encryptedWallet(keks);
    const share = shares[0]!;
    for (const index of [0, 31, 32, 47]) {
      const ciphertext = new Uint8Array(share.ciphertext);
      ciphertext[index]! ^= 0x01;
      expect(() => decryptShare(keks, WALLET, { ...share, ciphertext })).toThrow('key share cannot be decrypted');
    }
    const iv = new Uint8Array(share.iv);
    iv[0]! ^= 0x80;
    expect(() => decryptShare(keks, WALLET, { ...share, iv })).toThrow('key share cannot be decrypted');
    expect(() => decryptShare(keks, WALLET, { ...share, ciphertext: share.ciphertext.subarray(0, 40) })).toThrow(
      'key share cannot be decrypted',
    );
    expect(() => decryptShare(keks, WALLET, { ...share, kekId: 'nope' })).toThrow('key share cannot be decrypted');
  });

  it('error message and properties carry no key material', () => {
    const keks = testKeks();
    const { shares, key } = encryptedWallet(keks);
    try {
      decryptShare(keks, OTHER_WALLET, shares[0]!);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(Error);
      const err = error as Error;
      expect(err.message).toBe('key share cannot be decrypted');
      expect(err.cause).toBeUndefined();
      const dump = JSON.stringify(err, Object.getOwnPropertyNames(err));
      for (const secret of [key.secret, keks.current('user').key]) {
        expect(dump).not.toContain(Buffer.from(secret).toString('hex'));
        expect(dump).not.toContain(Buffer.from(secret).toString('base64'));
      }
    }
  });

  it('still decrypts shares encrypted under a retired KEK', () => {
    const keks = testKeks();
    const { shares, key } = encryptedWallet(keks);
    keks.retire('user');
    keks.retire('service');
    expect(encryptShare(keks, WALLET, 'user', new Uint8Array(32)).kekId).not.toBe(shares[0]!.kekId);
    expect(withWalletSecret(keks, WALLET, shares, (s) => new Uint8Array(s))).toEqual(key.secret);
  });
});

describe('withWalletSecret', () => {
  it('hands the joined secret to the callback and zero-fills it afterwards', () => {
    const keks = testKeks();
    const { shares, key } = encryptedWallet(keks);
    let seen: Uint8Array | undefined;
    const result = withWalletSecret(keks, WALLET, shares, (secret) => {
      seen = secret;
      expect(secret).toEqual(key.secret);
      return 'signed';
    });
    expect(result).toBe('signed');
    expect(seen).toBeDefined();
    expect(seen!.every((b) => b === 0)).toBe(true);
  });

  it('zero-fills when the callback throws', () => {
    const keks = testKeks();
    const { shares } = encryptedWallet(keks);
    let seen: Uint8Array | undefined;
    expect(() =>
      withWalletSecret(keks, WALLET, shares, (secret) => {
        seen = secret;
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(seen!.every((b) => b === 0)).toBe(true);
  });

  it('refuses async callbacks (the secret would be wiped before they run on)', () => {
    const keks = testKeks();
    const { shares } = encryptedWallet(keks);
    let seen: Uint8Array | undefined;
    expect(() =>
      withWalletSecret(keks, WALLET, shares, async (secret) => {
        seen = secret;
      }),
    ).toThrow('withWalletSecretAsync');
    expect(seen!.every((b) => b === 0)).toBe(true);
  });

  it('accepts the shares in any order and requires both roles', () => {
    const keks = testKeks();
    const { shares, key } = encryptedWallet(keks);
    const reversed = [shares[1]!, shares[0]!];
    expect(withWalletSecret(keks, WALLET, reversed, (s) => new Uint8Array(s))).toEqual(key.secret);
    expect(() => withWalletSecret(keks, WALLET, [shares[0]!], () => 1)).toThrow('exactly one user share and one service share');
    expect(() => withWalletSecret(keks, WALLET, [shares[0]!, shares[0]!], () => 1)).toThrow(
      'exactly one user share and one service share',
    );
  });

  it('fails for another wallet id without calling the callback', () => {
    const keks = testKeks();
    const { shares } = encryptedWallet(keks);
    let called = false;
    expect(() =>
      withWalletSecret(keks, OTHER_WALLET, shares, () => {
        called = true;
      }),
    ).toThrow('key share cannot be decrypted');
    expect(called).toBe(false);
  });
});

describe('withWalletSecretAsync', () => {
  it('zero-fills after the promise resolves, not before', async () => {
    const keks = testKeks();
    const { shares, key } = encryptedWallet(keks);
    let seen: Uint8Array | undefined;
    const result = await withWalletSecretAsync(keks, WALLET, shares, async (secret) => {
      seen = secret;
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(secret).toEqual(key.secret);
      return 42;
    });
    expect(result).toBe(42);
    expect(seen!.every((b) => b === 0)).toBe(true);
  });

  it('zero-fills when the promise rejects', async () => {
    const keks = testKeks();
    const { shares } = encryptedWallet(keks);
    let seen: Uint8Array | undefined;
    await expect(
      withWalletSecretAsync(keks, WALLET, shares, async (secret) => {
        seen = secret;
        await Promise.resolve();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(seen!.every((b) => b === 0)).toBe(true);
  });
});
