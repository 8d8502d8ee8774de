/**
 * How the API reaches the signer: its client (mTLS over the Unix socket in DATA_DIR/signer, or
 * SIGNER_URL) wrapped as the key vault, and the API's own KEKs, which open no key share. The
 * client is made on the first call, so processes that never sign (most CLI commands) never read
 * the signer's credentials; credentials that cannot be read make that call 503 SIGNER_UNAVAILABLE.
 */
import { join } from 'node:path';
import { API_KEK_ROLES, type EncryptedShare, envKekProvider, fileKekProvider, resolveRecoveryPublicKey, type KekProvider, type KeyMaintenanceDeps, type KeyVault, type RecoveryPublicKey } from '@wallet/domain';
import { createSignerClient, signerClientSettings, SignerUnavailableError, type SignerClient, type SignerHealth } from '@wallet/signer/client';
import type { Config } from '../config.ts';
import { createApiKeyVault, type SignerCaller } from './remote-vault.ts';

export interface SignerConnection {
  vault: KeyVault;
  /** The raw vault RPC (key maintenance). */
  caller: SignerCaller;
  health(): Promise<SignerHealth>;
  close(): Promise<void>;
}

/** Stores threshold shares renewed by a fresh OT setup (or marked unusable after an abort), replacing the stored ones. */
export type RenewShares = (walletId: string, shares: EncryptedShare[], reason: 'ot-renewal' | 'ot-unusable') => Promise<void>;

export function connectSigner(config: Config, renewShares?: RenewShares): SignerConnection {
  let client: SignerClient | undefined;
  const connected = (): SignerClient => {
    if (client) return client;
    let settings;
    try {
      settings = signerClientSettings({ APP_ENV: config.appEnv, ...config.signer.env }, config.dataDir);
    } catch (error) {
      throw new SignerUnavailableError(`the signer's client settings cannot be read: ${(error as Error).message}`);
    }
    return (client = createSignerClient({ url: settings.url, tls: settings.tls, timeoutMs: config.signer.timeoutMs }));
  };
  const caller: SignerCaller = { call: (method, params, requestId) => connected().call(method, params, requestId) };
  return {
    caller,
    vault: apiVault(config, caller, renewShares),
    health: async () => {
      try {
        return await connected().health();
      } catch {
        return { reachable: false };
      }
    },
    close: async () => client?.close(),
  };
}

/** The API's KEKs: API_KEKS, or the generated file DATA_DIR/api/keks.json in local mode. */
export function apiKekProvider(config: Config): KekProvider {
  return config.kekSource === 'env' ? envKekProvider(config.kekEnv, API_KEK_ROLES) : fileKekProvider(join(config.dataDir, 'api'), API_KEK_ROLES);
}

/** The recovery public key: RECOVERY_PUBLIC_KEY_FILE, or local mode's generated DATA_DIR/recovery (read once, when first needed). */
export function apiRecoveryKey(config: Config): () => RecoveryPublicKey {
  let key: RecoveryPublicKey | undefined;
  return () => (key ??= resolveRecoveryPublicKey({ appEnv: config.appEnv, file: config.recoveryPublicKeyFile, localDir: join(config.dataDir, 'recovery') }));
}

/** The API's vault over a signer caller: FROST and DKLs23 wallets with the API's own share, the rest in the signer. */
export function apiVault(config: Config, signer: SignerCaller, renewShares?: RenewShares): KeyVault {
  const pool = config.presignPool.perWallet === 0 ? false : config.presignPool;
  return createApiKeyVault(signer, { keks: apiKekProvider(config), recovery: apiRecoveryKey(config), renewShares, crashAt: thresholdCrashHook(config.custodyCrashAt), presign: { pool } });
}

/** CUSTODY_CRASH_AT=before-write:<n> | after-write:<n> (tests): SIGKILL this process when the n-th wallet it converts, refreshes or recovers reaches that step. */
export function custodyCrashHooks(crashAt: Config['custodyCrashAt']): Pick<KeyMaintenanceDeps, 'beforeWrite' | 'afterWrite'> {
  if (!crashAt || (crashAt.step !== 'before-write' && crashAt.step !== 'after-write')) return {};
  let reached = 0;
  const hook = () => {
    if (++reached === crashAt.n) process.kill(process.pid, 'SIGKILL');
  };
  return crashAt.step === 'before-write' ? { beforeWrite: hook } : { afterWrite: hook };
}

/** CUSTODY_CRASH_AT=dkls-presigned:<n> | dkls-final:<n> (tests): SIGKILL this process in its n-th threshold signature at that step. */
function thresholdCrashHook(crashAt: Config['custodyCrashAt']): ((point: 'dkls-presigned' | 'dkls-final') => void) | undefined {
  if (!crashAt || (crashAt.step !== 'dkls-presigned' && crashAt.step !== 'dkls-final')) return undefined;
  let reached = 0;
  return (point) => {
    if (point === crashAt.step && ++reached === crashAt.n) process.kill(process.pid, 'SIGKILL');
  };
}

/** `RenewShares` over the database: one transaction per wallet; a share a refresh replaced meanwhile is not written back. */
export function renewSharesIn(stores: { resealThresholdShares(walletId: string, shares: EncryptedShare[], action: string): Promise<boolean> }): RenewShares {
  return async (walletId, shares, reason) => {
    await stores.resealThresholdShares(walletId, shares, `wallet.custody.${reason}`);
  };
}
