import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeVaultValue, encodeVaultValue, ensureLocalRecoveryKey, fileKekProvider, SIGNER_KEK_ROLES, VAULT_METHODS } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { recoverAddress, type Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { createSignerLimits } from '../limits/limits.ts';
import { createMemorySignerStore } from './in-process.ts';
import { createVaultHandlers } from './vault-handlers.ts';
import { createMemoryThresholdStore } from '../store/threshold-store.ts';

describe("the signer's limit on service-key signatures", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'signer-service-limit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses the sponsor key above its rate with 429 perServiceKeyPerMinute, logs only what it signed, and counts each key apart', async () => {
    const keks = fileKekProvider(dir, SIGNER_KEK_ROLES);
    const store = createMemorySignerStore();
    const handlers = createVaultHandlers({
      vault: createLocalKeyVault({ keks }),
      log: store,
      limits: createSignerLimits({ perWalletPerMinute: 1000, nativeValueCaps: {} }),
      serviceKeyLimits: createSignerLimits({ perWalletPerMinute: 2, nativeValueCaps: {}, holder: 'service key' }),
      capsValue: () => false,
      epochs: store,
      keks,
      recovery: ensureLocalRecoveryKey(path.join(dir, 'recovery')),
      threshold: createMemoryThresholdStore(),
    });
    const context = { requestId: 'r', client: 'wallet-api' };
    const newKey = async (purpose: string) => decodeVaultValue(await handlers[VAULT_METHODS.createServiceKey]!(encodeVaultValue({ purpose, chainId: 84532, now: new Date() }), context)) as { address: string };
    const sponsor = await newKey('sponsor');
    const relayer = await newKey('relayer');
    const hash = `0x${'cd'.repeat(32)}` as Hex;
    const sign = (row: unknown) => handlers[VAULT_METHODS.signWithServiceKey]!(encodeVaultValue({ row, request: { kind: 'hash', hash } }), context);

    for (let i = 0; i < 2; i++) {
      const { signed } = decodeVaultValue(await sign(sponsor)) as { signed: Hex };
      expect(await recoverAddress({ hash, signature: signed })).toBe(sponsor.address);
    }
    await expect(sign(sponsor)).rejects.toMatchObject({ code: 'SIGNER_LIMIT_EXCEEDED', status: 429, message: expect.stringContaining('this service key reached'), details: { limit: 'perServiceKeyPerMinute', max: 2 } });
    // The relayer key has its own window.
    await sign(relayer);
    expect(store.signatures.filter((s) => s.walletId.startsWith('service-key:'))).toHaveLength(3);
  });
});
