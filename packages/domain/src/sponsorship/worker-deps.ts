import type { ServiceKeys } from '../custody/service-keys.ts';
import type { EncryptedShare } from '../custody/types.ts';
import type { NewEvent, TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import type { CrashAt } from '../shared/crash-points.ts';
import type { SigningPipeline } from '../signing/pipeline.ts';
import type { EvmGateway } from '../transactions/gateways.ts';
import type { SponsorshipChainConfig } from './chain-config.ts';
import type { SponsoredOperationChain } from './operation-chain.ts';
import type { SponsoredOperationStore, SponsoredPatch, SponsoredSaveOptions } from './operation-store.ts';
import type { Sponsorship } from './service.ts';
import type { SponsoredWakeups } from './wakeups.ts';

/** One sponsorship chain as the worker uses it. */
export interface SponsoredChainAccess {
  config: SponsorshipChainConfig;
  chain: SponsoredOperationChain;
  gateway: EvmGateway;
}

export interface SponsoredWorkerDeps {
  store: SponsoredOperationStore;
  /** The relayer's nonces come from the shared allocator (its id: `relayerAllocatorId`). */
  transactions: Pick<TransactionStore, 'allocateNonce' | 'releaseNonce'>;
  /** Every wallet signature (authorization, user operation) goes through it. */
  pipeline: SigningPipeline;
  serviceKeys: Pick<ServiceKeys, 'ensureServiceKey' | 'signSponsorship' | 'signRelayerTransaction'>;
  sponsorship: Pick<Sponsorship, 'get' | 'reserveSponsorshipBudget' | 'raiseSponsorshipBudget' | 'settleSponsorshipBudget' | 'releaseSponsorshipBudget'>;
  /** The sponsorship chain of `chainId` (undefined: no longer configured). */
  chains: (chainId: number) => SponsoredChainAccess | undefined;
  loadWalletWithShares: (caller: Caller, walletId: string) => Promise<{ wallet: WalletRecord; shares: EncryptedShare[] }>;
  isDevnet: (record: Pick<TransactionRecord, 'walletType' | 'chainId' | 'network'>) => boolean;
  clock: Clock;
  /** Names this process's leases. */
  owner: string;
  batchSize?: number;
  leaseMs?: number;
  /** Managed retry of operations stuck under the base fee (replace-operation.ts): defaults 3 blocks, 5 operations. */
  autoRetry?: { afterBlocks?: number; maxAttempts?: number };
  /** How long the paymaster's signature stays valid (seconds, default 3600). */
  sponsorshipValiditySeconds?: number;
  logger?: { warn(details: object, message: string): void };
  /** Where admission and resume announce records due now (the worker of this process runs them at once). */
  wakeups?: Pick<SponsoredWakeups, 'subscribe'>;
  /** Fault injection in tests (CRASH_AT): kills the process at a step of an operation. */
  crashAt?: CrashAt;
}

/** Saves a step of a leased record: the patch and events (and a signature), the lease released unless `keepLease`. */
export type SaveStep = (record: TransactionRecord, patch: SponsoredPatch, events?: NewEvent[], options?: SponsoredSaveOptions) => Promise<TransactionRecord | null>;

/** The sponsorship chains this deployment can reach: each with its gateway and its user-operation port. */
export function sponsoredChainAccess(
  configs: readonly SponsorshipChainConfig[],
  gateways: { evm(chainId: number): EvmGateway | undefined },
  operations: ((config: SponsorshipChainConfig) => SponsoredOperationChain | undefined) | undefined,
): SponsoredChainAccess[] {
  return configs.flatMap((config) => {
    const gateway = gateways.evm(config.chainId);
    const chain = operations?.(config);
    return gateway && chain ? [{ config, chain, gateway }] : [];
  });
}
