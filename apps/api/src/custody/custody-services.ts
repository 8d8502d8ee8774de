/**
 * The API's custody wiring: the key vault every signature goes through, the operator's key
 * maintenance (convert, refresh) and the signature log check, all over one signer connection (the
 * signer process, or in tests its handlers in process).
 */
import type { Database, Stores } from '@wallet/db';
import type { KekProvider, KeyVault } from '@wallet/domain';
import type { SignerHealth } from '@wallet/signer/client';
import type { Config } from '../config.ts';
import { createKeyMaintenance } from './key-maintenance.ts';
import { createVaultCall, type SignerCaller } from './remote-vault.ts';
import { checkSignatureLog } from './signature-log-check.ts';
import { apiRecoveryKey, apiVault, connectSigner, custodyCrashHooks, renewSharesIn } from './signer-connection.ts';

export interface CustodyOptions {
  /** A vault holding the keys in this process (tests). */
  vault?: KeyVault;
  /** The signer to call (tests: its handlers in this process, `@wallet/signer/in-process`). */
  signerCaller?: SignerCaller;
}

export function createCustodyServices(config: Config, options: CustodyOptions, deps: { stores: Stores; keks: KekProvider; database: Database }) {
  const renewShares = renewSharesIn(deps.stores);
  const signer = options.vault || options.signerCaller ? null : connectSigner(config, renewShares);
  const signerCaller = options.signerCaller ?? signer?.caller;
  const vault = options.vault ?? (options.signerCaller ? apiVault(config, options.signerCaller, renewShares) : signer!.vault);
  return {
    vault,
    /** The operator's convert and refresh (npm run custody), over the same signer; undefined without one. */
    keyMaintenance: signerCaller
      ? createKeyMaintenance({ store: deps.stores.keyMaintenance, call: createVaultCall(signerCaller), keks: deps.keks, recovery: apiRecoveryKey(config), ...custodyCrashHooks(config.custodyCrashAt) })
      : undefined,
    /** `npm run custody -- verify-log`: the signer's log chain, and its entries against the audit log. */
    checkSignatureLog: signerCaller ? () => checkSignatureLog(signerCaller, deps.database) : undefined,
    /** Whether the signer process answers (GET /health, the console's overview); an in-process test vault always does. */
    signerHealth: (): Promise<SignerHealth> => signer?.health() ?? Promise.resolve({ reachable: true, status: 'in-process' }),
    close: async () => signer?.close(),
  };
}
