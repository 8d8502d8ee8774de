import { createStores, type Database } from '@wallet/db';
import { createServiceKeys, systemClock, type KeyVault } from '@wallet/domain';
import type { Config } from '../config.ts';
import { connectSigner } from './signer-connection.ts';

/**
 * The service's sponsor and relayer keys of `chainId`, created when missing: `npm start` reads them
 * while the devnets start, so that the devnet's sponsorship setup (in createServices) finds them at once.
 */
export async function ensureSponsorshipKeys(config: Config, database: Database, chainId: number, vault?: KeyVault): Promise<void> {
  const signer = vault ? null : connectSigner(config);
  try {
    const keys = createServiceKeys({ store: createStores(database).serviceKeys, vault: vault ?? signer!.vault, clock: systemClock });
    await Promise.all([keys.ensureServiceKey('sponsor', chainId), keys.ensureServiceKey('relayer', chainId)]);
  } finally {
    await signer?.close();
  }
}
