/**
 * The signer's RPC methods. The key vault is the domain's local vault over this process's KEKs:
 * the generated file SIGNER_DATA_DIR/keks.json in local mode, the environment's share KEKs in beta
 * and production. Nothing else in the service opens a key.
 */
import { envKekProvider, fileKekProvider, resolveRecoveryPublicKey, SIGNER_KEK_ROLES, type KekProvider, type RecoveryPublicKey } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { dirname, join } from 'node:path';
import type { SignerConfig } from '../config/config.ts';
import { createSignerLimits, type SignerLimits } from '../limits/limits.ts';
import type { SignerLogger } from '../server/logger.ts';
import type { SignerHandler } from '../server/server.ts';
import type { SignerStore } from '../store/store.ts';
import { createLogHandlers } from './log-handlers.ts';
import { openThresholdStore } from '../store/threshold-store.ts';
import { createVaultHandlers } from './vault-handlers.ts';

export interface SignerHandlerDeps {
  config: SignerConfig;
  store: SignerStore;
  limits: SignerLimits;
  logger: SignerLogger;
}

export function signerKekProvider(config: SignerConfig): KekProvider {
  return config.kekSource === 'env' ? envKekProvider(config.kekEnv, SIGNER_KEK_ROLES) : fileKekProvider(dirname(config.kekFile!), SIGNER_KEK_ROLES);
}

/** RECOVERY_PUBLIC_KEY_FILE, or in local mode the pair generated once in DATA_DIR/recovery (shared with the API). */
export function signerRecoveryKey(config: SignerConfig): RecoveryPublicKey {
  return resolveRecoveryPublicKey({ appEnv: config.appEnv, file: config.recoveryPublicKeyFile, localDir: join(config.dataDir, 'recovery') });
}

export async function createSignerHandlers({ config, store, limits, logger }: SignerHandlerDeps): Promise<Record<string, SignerHandler>> {
  const keks = signerKekProvider(config);
  // Beside the signature log, under the same store lock (held by `store`).
  const threshold = await openThresholdStore(config.signerDataDir, logger);
  const vault = createLocalKeyVault({ keks });
  const vaultHandlers = createVaultHandlers({
    vault,
    log: store,
    limits,
    serviceKeyLimits: createSignerLimits({ perWalletPerMinute: config.limits.perServiceKeyPerMinute, nativeValueCaps: {}, holder: 'service key' }),
    capsValue: (chain) => config.limits.nativeValueCaps[chain] !== undefined,
    epochs: store,
    keks,
    recovery: signerRecoveryKey(config),
    threshold,
    presignPool: config.presignPool,
    logger,
  });
  return { ...vaultHandlers, ...createLogHandlers(store) };
}
