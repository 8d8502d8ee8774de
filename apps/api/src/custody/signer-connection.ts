/**
 * How the API reaches the signer: its client (mTLS over the Unix socket in DATA_DIR/signer, or
 * SIGNER_URL) wrapped as the key vault, and the API's own KEKs, which open no key share. The
 * client is made on the first call, so processes that never sign (most CLI commands) never read
 * the signer's credentials; credentials that cannot be read make that call 503 SIGNER_UNAVAILABLE.
 */
import { join } from 'node:path';
import { API_KEK_ROLES, envKekProvider, fileKekProvider, type KekProvider, type KeyVault } from '@wallet/domain';
import { createSignerClient, signerClientSettings, SignerUnavailableError, type SignerClient, type SignerHealth } from '@wallet/signer/client';
import type { Config } from '../config.ts';
import { createRemoteKeyVault } from './remote-vault.ts';

export interface SignerConnection {
  vault: KeyVault;
  health(): Promise<SignerHealth>;
  close(): Promise<void>;
}

export function connectSigner(config: Config): SignerConnection {
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
  return {
    vault: createRemoteKeyVault({ call: (method, params, requestId) => connected().call(method, params, requestId) }),
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
