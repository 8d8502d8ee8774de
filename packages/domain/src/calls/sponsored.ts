/**
 * A sponsored batch (`sponsored: true`): the calls run as ONE ERC-4337 user operation of the
 * wallet's delegated EOA (`executeBatch(calls)`), whose gas the service's paymaster pays, under the
 * rules of sponsored transfers (sponsorship/admission.ts): every call must be to a token or contract
 * the chain's entry sponsors, without native value (else 409 CALLS_UNAVAILABLE); the project and environment must have
 * sponsorship enabled (else 409 CALLS_UNAVAILABLE) and not paused (409 SPONSORSHIP_PAUSED), the
 * chain must be a sponsorship chain, the wallet API-created, unclaimed and ready; the batch is
 * simulated (422 CALLS_SIMULATION_REVERTED), its most expensive case checked against the gas cap
 * and reserved on the daily budget (422 SPONSORSHIP_GAS_CAP_EXCEEDED / SPONSORSHIP_BUDGET_EXCEEDED),
 * all before the record exists. The record (`intentKind: "calls"`, `executionMode: "sponsored"`,
 * stage `accepted`) is then carried on by the sponsored worker like a sponsored transfer's: the
 * delegation and the operation signed through the pipeline (policies judge every call; a review
 * pauses it at `requires_action`), submitted, followed to its UserOperationEvent.
 */
import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import { ApiError } from '../errors.ts';
import type { BatchCall, TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { batchSponsorshipRefusal } from '../sponsorship/eligibility.ts';
import { checkGasCap } from '../sponsorship/gas-cap.ts';
import type { SponsoredMonitoring } from '../sponsorship/operation-context.ts';
import type { Sponsorship } from '../sponsorship/service.ts';
import type { SponsoredChainAccess } from '../sponsorship/worker-deps.ts';
import { beforeRecord } from '../transactions/context.ts';

export interface SponsoredBatchDeps {
  store: Pick<TransactionStore, 'create'>;
  sponsorship: Pick<Sponsorship, 'sponsorshipAdmission' | 'reserveSponsorshipBudget' | 'releaseSponsorshipBudget'>;
  /** The sponsorship chains of this deployment. */
  chains: () => readonly SponsoredChainAccess[];
  clock: Clock;
  /** Announces the accepted record to this process's sponsored worker (sponsorship/wakeups.ts). */
  wake?: (recordId: string) => void;
}

const unavailable = (message: string) => new ApiError(409, 'CALLS_UNAVAILABLE', message);
const unprocessable = (code: string, message: string, details: Record<string, unknown>) => new ApiError(422, code, message, details);

export function createSponsoredBatches({ store, sponsorship, chains, clock, wake }: SponsoredBatchDeps) {
  return {
    /**
     * The accepted sponsored record. `simulate` refuses a reverting batch (it throws); it runs after
     * the admission checks and before anything is reserved.
     */
    async admit(caller: Caller, wallet: WalletRecord, chainId: number, calls: BatchCall[], simulate: () => Promise<void>): Promise<TransactionRecord> {
      const access = chains().find((c) => c.config.chainId === chainId);
      if (!access) throw unavailable(`Chain ${chainId} has no gas sponsorship in this deployment; send the batch without sponsored, paid by the wallet`);
      if (wallet.migratedAt !== null) throw unavailable('Only API-created, unclaimed, ready wallets are sponsored; send the batch without sponsored');
      const ineligible = batchSponsorshipRefusal(calls, access.config);
      if (ineligible !== null) throw unavailable(`This batch is not sponsored: ${ineligible}; send it without sponsored, paid by the wallet`);
      const location = { projectId: caller.projectId, environment: caller.environment };
      const admission = await sponsorship.sponsorshipAdmission(location);
      if (admission.state === 'disabled') throw unavailable('Gas sponsorship is not enabled for this project and environment; send the batch without sponsored, paid by the wallet');
      if (admission.state === 'paused') {
        throw new ApiError(409, 'SPONSORSHIP_PAUSED', 'Sponsored transactions are paused for this project and environment; operations already accepted still finish. Retry once sponsorship is resumed');
      }
      await simulate();
      const facts = { sender: wallet.address as Hex, token: '0x0000000000000000000000000000000000000000' as Hex, recipient: '0x0000000000000000000000000000000000000000' as Hex, amount: 0n };
      const maxCostWei = await beforeRecord(access.chain.maxCostEstimate({ ...facts, calls: calls.map((c) => ({ to: c.to as Hex, value: BigInt(c.value), data: c.data as Hex })) }));
      const cap = checkGasCap(admission.settings, maxCostWei);
      if (!cap.ok) throw unprocessable(cap.code, cap.message, { gasCapWei: cap.gasCapWei, maxCostWei: cap.maxCostWei });
      const id = randomUUID();
      const budget = await sponsorship.reserveSponsorshipBudget(location, id, maxCostWei);
      if (!budget.ok) {
        throw unprocessable(budget.code, budget.message, { requestedWei: budget.requestedWei, usedTodayWei: budget.usedTodayWei, dailyBudgetWei: budget.dailyBudgetWei, day: budget.day });
      }
      const monitoring: SponsoredMonitoring = { sponsored: { environment: caller.environment, initiatorUserId: caller.initiatorUserId ?? null } };
      let record: TransactionRecord;
      try {
        record = await store.create(
          {
            id,
            projectId: caller.projectId,
            partnerId: caller.partnerId,
            walletId: wallet.id,
            walletType: 'EVM',
            intentKind: 'calls',
            status: 'pending',
            chainId: String(chainId),
            network: null,
            fromAddress: wallet.address,
            to: null,
            value: null,
            tokenAddress: null,
            nonce: null,
            hash: null,
            recentBlockhash: null,
            lastValidBlockHeight: null,
            nonceAccount: null,
            failureStage: null,
            failureCode: null,
            failureMessage: null,
            monitoring,
            cancellationOf: null,
            requestId: caller.requestId,
            apiKeyId: caller.apiKeyId,
            idempotencyKey: caller.idempotencyKey ?? null,
            executionMode: 'sponsored',
            stage: 'accepted',
            calls,
            submittedAt: null,
            nextCheckAt: clock.now(),
          },
          [],
        );
      } catch (error) {
        await sponsorship.releaseSponsorshipBudget(id).catch(() => undefined);
        throw error;
      }
      wake?.(record.id);
      return record;
    },
  };
}

export type SponsoredBatches = ReturnType<typeof createSponsoredBatches>;
