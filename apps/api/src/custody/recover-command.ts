/**
 * `npm run custody -- recover --wallet-id W --lost api|signer --recovery-key-file F`: runs in the CLI's
 * own process, never through the running API server, because it uses the offline recovery private
 * key. The process reads that key (a 0600 file), opens the database itself, uses the API's KEKs and
 * reaches the signer over the API's mTLS client credentials, as the API does; recover.ts (domain) does
 * the work. With the embedded database (local mode) the service must be stopped first, since it holds
 * that database; this process then starts the local signer beside itself for the run.
 */
import { ApiError, invalidRequest } from '@wallet/domain';
import { readRecoveryPrivateKeyFile } from '@wallet/domain/custody/recover-key.ts';
import { recoverWallet, type LostParty, type WalletRecovery } from '@wallet/domain/custody/recover.ts';
import { createStores } from '@wallet/db';
import { ready } from '@wallet/frost-ed25519';
import { startSupervisedSigner } from '@wallet/signer/client';
import { z } from 'zod';
import { loadConfig, type Config } from '../config.ts';
import { readControlFile } from '../local/control-file.ts';
import { openConfiguredDatabase } from '../services.ts';
import { createVaultCall } from './remote-vault.ts';
import { apiKekProvider, apiRecoveryKey, connectSigner, custodyCrashHooks } from './signer-connection.ts';

export interface RecoverArgs {
  walletId?: string;
  lost?: string;
  recoveryKeyFile?: string;
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

export async function runRecoverCommand(args: RecoverArgs, config: Config = loadConfig()): Promise<WalletRecovery> {
  const { walletId, lost, recoveryKeyFile } = args;
  if (!walletId || !z.uuid().safeParse(walletId).success) throw invalidRequest('--wallet-id must be a wallet id (a UUID)');
  if (lost !== 'api' && lost !== 'signer') throw invalidRequest('--lost must be api (the API process lost its share: its KEK or its row) or signer (the signer lost its share: its service KEK)');
  if (!recoveryKeyFile) throw invalidRequest('--recovery-key-file must name the file of the offline recovery private key (PEM, X25519, mode 0600)');
  if (!config.databaseUrl && readControlFile(config.dataDir)) {
    throw new ApiError(409, 'SERVICE_RUNNING', 'recover runs in this process, not in the running service, and the embedded database is held by the running service: stop it (npm start) and run the command again');
  }
  let recoveryPrivateKey;
  try {
    recoveryPrivateKey = readRecoveryPrivateKeyFile(recoveryKeyFile);
  } catch (error) {
    throw invalidRequest((error as Error).message);
  }
  await ready();
  const supervised = config.signer.supervised
    ? await startSupervisedSigner({ env: { ...process.env, APP_ENV: config.appEnv, DATA_DIR: config.dataDir, LOG_LEVEL: 'error', SIGNER_EXIT_WITH_PARENT: '1' }, logger: silent })
    : undefined;
  const database = await openConfiguredDatabase(config);
  const signer = connectSigner(config);
  try {
    return await recoverWallet(
      {
        store: createStores(database).keyMaintenance,
        call: createVaultCall(signer.caller),
        keks: apiKekProvider(config),
        recovery: apiRecoveryKey(config),
        recoveryPrivateKey,
        ...custodyCrashHooks(config.custodyCrashAt),
      },
      walletId,
      lost satisfies LostParty,
    );
  } finally {
    recoveryPrivateKey = undefined;
    await signer.close();
    await database.close();
    await supervised?.stop();
  }
}
