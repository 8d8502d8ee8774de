import type { ServiceKeyPurpose } from '../custody/service-keys.ts';
import type { SponsorshipChainConfig } from './chain-config.ts';

/** Local mode only: the devnet's sponsorship once its contracts are deployed and its relayer funded. */
export interface LocalSponsorship {
  /** The entry the service adds to the configured SPONSORSHIP chains. */
  chain: SponsorshipChainConfig;
  /** The paymaster's signer (the service's sponsor key) and the relayer key on the devnet. */
  sponsor: string;
  relayer: string;
}

/**
 * Local mode only: deploys (or reuses) the devnet's sponsorship contracts for the service's sponsor
 * key and funds its relayer key; run by the service once its keys can be read (the keys live in
 * the database under the service KEK).
 */
export type LocalSponsorshipSetup = (keys: {
  ensureServiceKey(purpose: ServiceKeyPurpose, chainId: number): Promise<{ address: string }>;
}) => Promise<LocalSponsorship>;
