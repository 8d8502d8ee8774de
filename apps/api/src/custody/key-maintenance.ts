/** The operator's key maintenance (npm run custody) wired to the API's stores, KEKs and signer. */
import { convertWalletsToFrost, refreshWalletShares, type KeyMaintenanceDeps, type MaintenanceCounts } from '@wallet/domain';

export interface KeyMaintenance {
  convert(): Promise<MaintenanceCounts>;
  refresh(): Promise<MaintenanceCounts>;
}

export function createKeyMaintenance(deps: KeyMaintenanceDeps): KeyMaintenance {
  return { convert: () => convertWalletsToFrost(deps), refresh: () => refreshWalletShares(deps) };
}
