/** The operator's key maintenance (npm run custody) wired to the API's stores, KEKs and signer. */
import {
  convertProjectToThreshold,
  convertWalletsToFrost,
  convertWalletToThreshold,
  refreshWalletShares,
  type KeyMaintenanceDeps,
  type MaintenanceCounts,
  type WalletConversion,
} from '@wallet/domain';

export interface KeyMaintenance {
  /** Every Ed25519 wallet still in XOR halves to FROST (`convert` without a scope). */
  convert(): Promise<MaintenanceCounts>;
  /** One wallet to threshold custody (`convert --wallet-id W --mode threshold`). */
  convertWallet(walletId: string): Promise<WalletConversion>;
  /** Every API-custody wallet of a project to threshold custody (`convert --project-id P --mode threshold`). */
  convertProject(projectId: string): Promise<MaintenanceCounts>;
  refresh(): Promise<MaintenanceCounts>;
}

export function createKeyMaintenance(deps: KeyMaintenanceDeps): KeyMaintenance {
  return {
    convert: () => convertWalletsToFrost(deps),
    convertWallet: (walletId) => convertWalletToThreshold(deps, walletId),
    convertProject: (projectId) => convertProjectToThreshold(deps, projectId),
    refresh: () => refreshWalletShares(deps),
  };
}
