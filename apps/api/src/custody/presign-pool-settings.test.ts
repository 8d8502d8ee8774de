import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { presignPools } from '@wallet/domain/custody/dkls-pool.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { apiVault } from './signer-connection.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'presign-pool-settings-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const unusedSigner = { call: async () => Promise.reject(new Error('no signer in this test')) } as unknown as Parameters<typeof apiVault>[1];

describe('the presignature pool settings', () => {
  it('default to 4 per wallet, 256 in all, 9 minutes each, and read each setting', () => {
    expect(loadConfig({}).presignPool).toEqual({ perWallet: 4, total: 256, maxAgeMs: 540_000 });
    expect(loadConfig({ PRESIGN_POOL_PER_WALLET: '2', PRESIGN_POOL_TOTAL: '50', PRESIGN_POOL_MAX_AGE_SECONDS: '120' }).presignPool).toEqual({ perWallet: 2, total: 50, maxAgeMs: 120_000 });
  });

  it('refuse values out of bounds, naming the setting', () => {
    for (const [name, value] of [
      ['PRESIGN_POOL_PER_WALLET', '65'],
      ['PRESIGN_POOL_PER_WALLET', 'four'],
      ['PRESIGN_POOL_TOTAL', '0'],
      ['PRESIGN_POOL_MAX_AGE_SECONDS', '59'],
      ['PRESIGN_POOL_MAX_AGE_SECONDS', '86401'],
    ]) {
      expect(() => loadConfig({ [name!]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => loadConfig({ [name!]: value })).toThrow(new RegExp(name!));
    }
  });

  it('reach the API vault: 0 per wallet makes no pool (every signature on demand), any other bound makes one', () => {
    const before = presignPools().size;
    apiVault(loadConfig({ DATA_DIR: dataDir, PRESIGN_POOL_PER_WALLET: '0' }), unusedSigner);
    expect(presignPools().size).toBe(before);
    apiVault(loadConfig({ DATA_DIR: dataDir, PRESIGN_POOL_PER_WALLET: '1' }), unusedSigner);
    expect(presignPools().size).toBe(before + 1);
    for (const pool of presignPools()) void pool.close();
  });
});
