/**
 * Admission of a sponsored transfer, in the transfer route: an eligible transfer (eligibility.ts)
 * of a project and environment with sponsorship enabled becomes a sponsored record at stage
 * `accepted`, due at once for the worker, and the route answers 202 with it. Before the record is
 * written the request is refused, with nothing recorded or reserved, when admission is paused (409
 * `SPONSORSHIP_PAUSED`), when the transfer would revert (400 `EXECUTION_FAILED`), when its most
 * expensive case is above the gas cap (422 `SPONSORSHIP_GAS_CAP_EXCEEDED`) or when that does not
 * fit in today's budget (422 `SPONSORSHIP_BUDGET_EXCEEDED`; the reservation is held for the record).
 * Policies decide later, in the worker, on each signature: a review pauses the record.
 */
import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import { ApiError } from '../errors.ts';
import type { TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { ChainUnavailableError } from '../transactions/gateways.ts';
import { rpcUnavailable } from '../transactions/context.ts';
import type { TransferInput } from '../transactions/schemas.ts';
import { sponsorshipEligibility } from './eligibility.ts';
import { checkGasCap } from './gas-cap.ts';
import type { SponsoredMonitoring } from './operation-context.ts';
import type { Sponsorship } from './service.ts';
import type { SponsoredChainAccess } from './worker-deps.ts';

export interface SponsoredAdmissionDeps {
  store: Pick<TransactionStore, 'create'>;
  sponsorship: Pick<Sponsorship, 'sponsorshipAdmission' | 'get' | 'reserveSponsorshipBudget' | 'releaseSponsorshipBudget'>;
  /** The sponsorship chains of this deployment. */
  chains: () => readonly SponsoredChainAccess[];
  clock: Clock;
  /** Announces the accepted record to this process's sponsored worker (wakeups.ts). */
  wake?: (recordId: string) => void;
}

const unprocessable = (code: string, message: string, details: Record<string, unknown>) => new ApiError(422, code, message, details);

export function createSponsoredAdmission({ store, sponsorship, chains, clock, wake }: SponsoredAdmissionDeps) {
  return {
    /** The accepted sponsored record, or null when the transfer takes the wallet's own transaction. */
    async admit(caller: Caller, wallet: WalletRecord, input: TransferInput): Promise<TransactionRecord | null> {
      const available = chains();
      const eligibility = sponsorshipEligibility(
        wallet,
        input,
        available.map((c) => ({ chainId: c.config.chainId, tokens: c.config.tokens })),
      );
      if (!eligibility.eligible) return null;
      const location = { projectId: caller.projectId, environment: caller.environment };
      const admission = await sponsorship.sponsorshipAdmission(location);
      if (admission.state === 'disabled') return null;
      if (admission.state === 'paused') {
        throw new ApiError(409, 'SPONSORSHIP_PAUSED', 'Sponsored transfers are paused for this project and environment; operations already accepted still finish. Retry once sponsorship is resumed');
      }
      const access = available.find((c) => c.config.chainId === input.chainId)!;
      const facts = { sender: wallet.address as Hex, token: input.tokenAddress as Hex, recipient: input.to as Hex, amount: BigInt(input.value) };
      let maxCostWei: bigint;
      try {
        const simulation = await access.chain.simulate(facts);
        if (!simulation.ok) throw new ApiError(400, 'EXECUTION_FAILED', `The transfer would fail, so it was not sponsored: ${simulation.message}`);
        maxCostWei = await access.chain.maxCostEstimate(facts);
      } catch (error) {
        // The chain library's message names the RPC URL, which can carry a provider's key: not repeated.
        if (error instanceof ChainUnavailableError || (error instanceof Error && /fetch failed|ECONNREFUSED|HTTP request failed|timed out|bundler/i.test(error.message))) {
          throw rpcUnavailable(new Error(`chain ${input.chainId} did not answer`));
        }
        throw error;
      }
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
            intentKind: 'transfer',
            status: 'pending',
            chainId: String(input.chainId),
            network: null,
            fromAddress: wallet.address,
            to: input.to,
            value: input.value,
            tokenAddress: input.tokenAddress!,
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

export type SponsoredAdmission = ReturnType<typeof createSponsoredAdmission>;
