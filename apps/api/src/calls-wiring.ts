/** createServices' wiring of batched calls (POST /v1/wallets/{walletId}/calls): the domain use case over the stores and chains. */
import { CANONICAL_SIMPLE_7702_ACCOUNT, createCallsService, createSponsoredBatches, type BatchCallChain, type CallsServiceDeps, type SponsoredBatchDeps, type SponsorshipChainConfig } from '@wallet/domain';

export interface CallsWiring extends Omit<CallsServiceDeps, 'chains' | 'sponsored'> {
  /** Sponsored batches: the sponsorship settings and chains sponsored transfers use. */
  sponsorship: SponsoredBatchDeps['sponsorship'];
  sponsoredChains: SponsoredBatchDeps['chains'];
  /** Announces an accepted sponsored batch to this process's sponsored worker. */
  sponsoredWake?: SponsoredBatchDeps['wake'];
  /** The registry's batch chains (absent: no chain runs batches). */
  batchCalls?: (chainId: number, delegate: `0x${string}`) => BatchCallChain | undefined;
  /** The chains with sponsorship: their delegate is the wallet's delegate there; elsewhere the canonical Simple7702Account. */
  sponsorshipChains: SponsorshipChainConfig[];
}

export function createCallsWiring({ batchCalls, sponsorshipChains, sponsorship, sponsoredChains, sponsoredWake, ...deps }: CallsWiring) {
  const sponsored = createSponsoredBatches({ store: deps.store, sponsorship, chains: sponsoredChains, clock: deps.clock, wake: sponsoredWake });
  const delegateOf = (chainId: number) => (sponsorshipChains.find((c) => c.chainId === chainId)?.delegate ?? CANONICAL_SIMPLE_7702_ACCOUNT) as `0x${string}`;
  return createCallsService({ ...deps, sponsored, chains: (chainId) => batchCalls?.(chainId, delegateOf(chainId)) });
}
