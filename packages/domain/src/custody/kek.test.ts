import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envKekProvider, fileKekProvider, generateKekEntry } from './kek.ts';
import { decryptShare, encryptShare } from './shares.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kek-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const WALLET = '6f1d6d2e-6a53-4a4b-9f55-0b5c3f1f2a11';

describe('fileKekProvider', () => {
  it('creates keks.json (and the directory) with mode 0600 and one key per role', () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    const keks = fileKekProvider(dataDir);
    const file = join(dataDir, 'keks.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const user = keks.current('user');
    const service = keks.current('service');
    expect(user.id).toMatch(/^file-user-[0-9a-f]{8}$/);
    expect(service.id).toMatch(/^file-service-[0-9a-f]{8}$/);
    expect(user.key.length).toBe(32);
    expect(service.key.length).toBe(32);
    expect(user.key.equals(service.key)).toBe(false);
    expect(keks.byId(user.id)).toBe(user);
    expect(keks.byId('unknown')).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);
  });

  it('reloads the same keys, so shares stay decryptable', () => {
    const dataDir = tempDir();
    const first = fileKekProvider(dataDir);
    const share = new Uint8Array(randomBytes(32));
    const encrypted = encryptShare(first, WALLET, 'service', share);
    const second = fileKekProvider(dataDir);
    expect(second.current('user').id).toBe(first.current('user').id);
    expect(second.current('user').key.equals(first.current('user').key)).toBe(true);
    expect(second.current('service').key.equals(first.current('service').key)).toBe(true);
    expect(decryptShare(second, WALLET, encrypted)).toEqual(share);
  });

  it('refuses a file readable by group or others', () => {
    const dataDir = tempDir();
    fileKekProvider(dataDir);
    const file = join(dataDir, 'keks.json');
    for (const mode of [0o640, 0o604, 0o660]) {
      chmodSync(file, mode);
      expect(() => fileKekProvider(dataDir)).toThrow(/accessible by group or others.*chmod 600/);
    }
    chmodSync(file, 0o600);
    expect(() => fileKekProvider(dataDir)).not.toThrow();
  });

  it('refuses a corrupt file without echoing its content', () => {
    const dataDir = tempDir();
    fileKekProvider(dataDir);
    const file = join(dataDir, 'keks.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    const leaked = data.keys[0].key as string;
    data.keys[0].key = leaked.slice(0, 20);
    writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
    expect(() => fileKekProvider(dataDir)).toThrow('key 1 is not a base64 32-byte key');
    try {
      fileKekProvider(dataDir);
    } catch (error) {
      expect((error as Error).message).not.toContain(leaked.slice(0, 20));
    }
  });
});

describe('envKekProvider', () => {
  const k = () => randomBytes(32).toString('base64');

  it('parses both lists; the first entry is current and the others stay readable', () => {
    const [u1, u0, s1, s0] = [k(), k(), k(), k()];
    const keks = envKekProvider({
      USER_SHARE_KEKS: `user-2026:${u1}, user-2025:${u0}`,
      SERVICE_SHARE_KEKS: `svc-2026:${s1},svc-2025:${s0}`,
    });
    expect(keks.current('user').id).toBe('user-2026');
    expect(keks.current('user').key.toString('base64')).toBe(u1);
    expect(keks.current('service').id).toBe('svc-2026');
    expect(keks.byId('user-2025')?.key.toString('base64')).toBe(u0);
    expect(keks.byId('svc-2025')?.key.toString('base64')).toBe(s0);
    expect(keks.byId('nope')).toBeUndefined();
  });

  it('decrypts shares written under the previous current KEK after rotation', () => {
    const [uOld, uNew, s] = [k(), k(), k()];
    const before = envKekProvider({ USER_SHARE_KEKS: `u-old:${uOld}`, SERVICE_SHARE_KEKS: `s:${s}` });
    const share = new Uint8Array(randomBytes(32));
    const encrypted = encryptShare(before, WALLET, 'user', share);
    const after = envKekProvider({ USER_SHARE_KEKS: `u-new:${uNew},u-old:${uOld}`, SERVICE_SHARE_KEKS: `s:${s}` });
    expect(after.current('user').id).toBe('u-new');
    expect(decryptShare(after, WALLET, encrypted)).toEqual(share);
    expect(encryptShare(after, WALLET, 'user', share).kekId).toBe('u-new');
  });

  it('accepts generated entries', () => {
    const keks = envKekProvider({ USER_SHARE_KEKS: generateKekEntry('u1'), SERVICE_SHARE_KEKS: generateKekEntry('s1') });
    expect(keks.current('user').id).toBe('u1');
    expect(keks.current('service').key.length).toBe(32);
  });

  it('names the missing variable', () => {
    expect(() => envKekProvider({ SERVICE_SHARE_KEKS: `s:${k()}` })).toThrow(/^USER_SHARE_KEKS is not set/);
    expect(() => envKekProvider({ USER_SHARE_KEKS: `u:${k()}`, SERVICE_SHARE_KEKS: ' ' })).toThrow(
      /^SERVICE_SHARE_KEKS is not set/,
    );
  });

  it('rejects malformed entries without echoing key material', () => {
    const key = k();
    const short = randomBytes(16).toString('base64');
    const cases: Array<[string, RegExp]> = [
      [key, /USER_SHARE_KEKS entry 1 is malformed/], // no id
      [`:${key}`, /USER_SHARE_KEKS entry 1 is malformed/],
      [`u1:${short}`, /USER_SHARE_KEKS entry 1 \(id u1\) does not hold a base64-encoded 32-byte key/],
      [`u1:${key}!`, /USER_SHARE_KEKS entry 1 \(id u1\) does not hold/],
      [`u1:${key},`, /USER_SHARE_KEKS entry 2 is malformed/],
      [`u 1:${key}`, /USER_SHARE_KEKS entry 1 has an invalid id/],
      [`u1:${key},u1:${k()}`, /key id u1 is used twice/],
      [`u1:${key},u2:${key}`, /hold the same key/],
    ];
    for (const [value, expected] of cases) {
      let message = '';
      try {
        envKekProvider({ USER_SHARE_KEKS: value, SERVICE_SHARE_KEKS: `s:${k()}` });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(expected);
      expect(message).not.toContain(key);
      expect(message).not.toContain(key.slice(0, 16));
      expect(message).not.toContain(short.slice(0, 16));
    }
  });

  it('requires the two lists not to share a key or an id', () => {
    const shared = k();
    expect(() => envKekProvider({ USER_SHARE_KEKS: `u:${shared}`, SERVICE_SHARE_KEKS: `s:${shared}` })).toThrow(
      /user and service KEKs must not share a key/,
    );
    expect(() => envKekProvider({ USER_SHARE_KEKS: `x:${k()}`, SERVICE_SHARE_KEKS: `x:${k()}` })).toThrow(
      /key id x is used twice/,
    );
  });
});
