/**
 * The yield worker's unit of work: lease the due operations (oldest first, one per wallet and
 * chain) and move each one step along the spec's state table:
 *
 * - `submitted`: follow the current step's record (the transaction monitor resolves it with two
 *   confirmations). While an approval waits for its confirmations, the action is prepared ahead
 *   (simulated once the approval is in a block; gas, fees and nonce stored, nothing signed). An
 *   approval confirmed → `pending` and the action is simulated again and signed at once; the action
 *   confirmed → `confirmed`; reverted → `failed`; its nonce consumed by another transaction →
 *   `failed` with NONCE_CONSUMED; a step still `signed` (send outcome unknown) is re-sent with its
 *   stored bytes.
 * - `pending`: prepare the next step — capture the plan (vault deposit bound, vault `all` shares),
 *   approve exactly the amount when the allowance is short, simulate the action (supply cap, price
 *   bound, liquidity) and only then allocate a nonce, sign and send.
 *
 * Everything durable is in the store; a killed worker's leases expire and any process continues.
 */
import type { Hex } from 'viem';
import type { TransactionRecord, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { exponentialBackoffMs } from '../shared/backoff.ts';
import { BroadcastRejectedError, ChainUnavailableError, type ChainGateways, type EvmGateway } from '../transactions/gateways.ts';
import { actionCall, allowanceRead, approvalCall, boundFailure, minSharesFor, simulationFailure, uintResult, vaultRead, type YieldCall } from './calls.ts';
import type { YieldMarket } from './markets.ts';
import type { YieldOperationError, YieldOperationPatch, YieldOperationRecord, YieldOperationStore, YieldPlan } from './operations.ts';
import { normalizeYieldAmount } from './request.ts';
import type { SendOutcome } from '../transactions/broadcast.ts';
import { isSigningRefusal, operationCaller, type YieldSteps } from './step.ts';

/**
 * How often a `submitted` operation looks at its step again. The monitor's resolving statement also
 * makes the operation due at once, so this is the fallback, not the usual path.
 */
const FOLLOW_MS = 1_000;
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export interface YieldRunnerDeps {
  store: YieldOperationStore;
  steps: YieldSteps;
  gateways: ChainGateways;
  markets: () => YieldMarket[];
  clock: Clock;
  /** Names this process's leases. */
  owner: string;
  loadWallet: (caller: Caller, walletId: string) => Promise<WalletRecord>;
  loadRecord: (operation: YieldOperationRecord, transactionId: string) => Promise<TransactionRecord | null>;
  releaseNonce: (walletId: string, chainId: string, nonce: number) => Promise<void>;
  batchSize?: number;
  leaseMs?: number;
  logger?: { warn(details: object, message: string): void };
}

export interface YieldRunResult {
  leased: number;
}

/** The step's record failed because another transaction used its nonce (monitor: REPLACED or CANCELLED). */
const nonceConsumed = (failureCode: string | null) => failureCode === 'REPLACED' || failureCode === 'CANCELLED';

export function createYieldRunner(deps: YieldRunnerDeps) {
  const { store, steps, gateways, clock, owner } = deps;
  // Small batches, several in flight (the worker's concurrency): an operation ready now does not wait for a batch of slow ones.
  const batchSize = deps.batchSize ?? 10;
  const leaseMs = deps.leaseMs ?? 15_000;
  const after = (ms: number) => new Date(clock.now().getTime() + ms);
  /** Operations a run of this process is working on. */
  const inFlight = new Set<string>();

  const save = (operation: YieldOperationRecord, patch: YieldOperationPatch) => store.save(owner, operation.id, patch);
  const walletAddress = async (operation: YieldOperationRecord) => (await deps.loadWallet(operationCaller(operation), operation.walletId)).address as Hex;
  const pause = (operation: YieldOperationRecord, error: YieldOperationError, plan?: YieldPlan) =>
    save(operation, { status: 'requires_action', error, nextRunAt: null, consecutiveErrors: 0, ...(plan ? { plan } : {}) });
  const fail = (operation: YieldOperationRecord, error: YieldOperationError, plan?: YieldPlan) =>
    save(operation, { status: 'failed', error, nextRunAt: null, resolvedAt: clock.now(), ...(plan ? { plan } : {}) });

  /** Fails or pauses the operation; a prepared transaction that was never signed is dropped and gives its nonce back. */
  async function endUnsigned(end: typeof fail, operation: YieldOperationRecord, error: YieldOperationError) {
    const { prepared, ...rest } = operation.plan;
    const saved = await end(operation, error, rest);
    if (saved && prepared) await deps.releaseNonce(operation.walletId, String(operation.chainId), prepared.nonce);
  }
  const failUnsigned = (operation: YieldOperationRecord, error: YieldOperationError) => endUnsigned(fail, operation, error);

  /** After a send: `submitted` is saved by addStep; a refusal ends the operation. */
  async function afterSend(operation: YieldOperationRecord, outcome: SendOutcome | null) {
    if (outcome === null) return;
    if (outcome.kind === 'refused') {
      await fail(operation, { code: 'BROADCAST_FAILED', message: `The node refused the signed transaction ${outcome.record.hash}: ${outcome.record.failureMessage}` });
      return;
    }
    await save(operation, { nextRunAt: after(FOLLOW_MS), consecutiveErrors: 0 });
  }

  async function follow(operation: YieldOperationRecord, market: YieldMarket, gateway: EvmGateway) {
    const step = operation.steps.at(-1)!;
    switch (step.recordStatus) {
      case 'pending': {
        const record = await deps.loadRecord(operation, step.transactionId);
        if (record?.status === 'pending') return afterSend(operation, await steps.send(gateway, record, true));
        return save(operation, { nextRunAt: after(0) });
      }
      case 'submitted':
        if (step.phase === 'approval' && !operation.plan.prepared) await prepareActionAhead(operation, market, gateway);
        return save(operation, { nextRunAt: after(FOLLOW_MS) });
      case 'confirmed':
        if (step.phase === 'action') return save(operation, { status: 'confirmed', error: null, nextRunAt: null, resolvedAt: clock.now() });
        return prepareNext({ ...operation, status: 'pending' }, market, gateway);
      case 'reverted':
        return failUnsigned(operation, { code: 'TRANSACTION_REVERTED', message: `The ${step.phase} transaction ${step.hash} reverted on-chain; check the position and history before a new request` });
      case 'failed':
        if (nonceConsumed(step.failureCode)) {
          return failUnsigned(operation, { code: 'NONCE_CONSUMED', message: `Nonce ${step.nonce} was consumed in a finalized block by another transaction and ${step.hash} has no receipt; it can no longer execute` });
        }
        return failUnsigned(operation, { code: 'BROADCAST_FAILED', message: step.failureMessage ?? `The ${step.phase} transaction failed` });
    }
  }

  /** Prepares (or reuses the prepared) next transaction, then signs and sends it. */
  async function prepareNext(operation: YieldOperationRecord, market: YieldMarket, gateway: EvmGateway) {
    const prepared = operation.plan.prepared;
    if (prepared?.phase === 'approval') return signPrepared(operation, gateway, operation.plan);
    const wallet = await walletAddress(operation);
    if (prepared) {
      // Prepared ahead, before a restart or before a review: simulated again right before it is signed.
      const refusal = await actionRefusal(operation, market, gateway, wallet, prepared, operation.plan);
      return refusal ? endUnsigned(pause, operation, refusal) : signPrepared(operation, gateway, operation.plan);
    }
    const amount = normalizeYieldAmount(operation.amount, operation.action).baseUnits;
    const plan: YieldPlan = { ...operation.plan };

    if (operation.action === 'deposit') {
      const reads = [allowanceRead(market, wallet), ...(market.source === 'vaultprov-v2' ? [vaultRead(market, { previewDeposit: amount! })] : [])];
      const snapshot = await gateway.callAtLatestBlock(reads);
      if (market.source === 'vaultprov-v2' && plan.minShares === undefined) {
        const preview = uintResult(snapshot.results[1]);
        if (preview === null) throw new ChainUnavailableError('the vault preview could not be read');
        plan.minShares = minSharesFor(preview).toString();
      }
      const allowance = uintResult(snapshot.results[0]) ?? 0n;
      if (allowance < amount!) {
        if (operation.steps.some((s) => s.phase === 'approval')) {
          return pause(operation, { code: 'SIGNING_REQUIRES_ACTION', message: "The confirmed approval's allowance was spent by another transaction; cancel this operation and use a new key" }, plan);
        }
        return prepareAndSign(operation, gateway, wallet, approvalCall(market, amount!), plan);
      }
    } else if (market.source === 'vaultprov-v2' && amount === null && plan.shares === undefined) {
      const shares = uintResult((await gateway.callAtLatestBlock([vaultRead(market, { balanceOf: wallet })])).results[0]);
      if (shares === null) throw new ChainUnavailableError('the vault share balance could not be read');
      if (shares === 0n) return pause(operation, { code: 'SIGNING_REQUIRES_ACTION', message: 'The wallet holds no shares of this vault; nothing to withdraw' });
      plan.shares = shares.toString();
    }

    const call = actionCall(market, operation, amount, plan, wallet);
    const refusal = await actionRefusal(operation, market, gateway, wallet, call, plan);
    if (refusal) return pause(operation, refusal, plan);
    return prepareAndSign(operation, gateway, wallet, call, plan);
  }

  /**
   * Simulates the action at the latest block: why it must not be signed now (a deposit's allowance
   * no longer covering it, the price bound, the supply cap, liquidity), or null. A refusal is asked
   * again once before it counts: a node producing a block while it answers can run the call on the
   * next block's state with this block's timestamp (anvil: 7 in 42,000 calls at the head while
   * blocks were produced), and Morpho's interest accrual then fails with Panic(0x11).
   */
  async function actionRefusal(...args: Parameters<typeof simulateAction>): Promise<YieldOperationError | null> {
    return (await simulateAction(...args)) && simulateAction(...args);
  }

  async function simulateAction(operation: YieldOperationRecord, market: YieldMarket, gateway: EvmGateway, wallet: Hex, call: { to: string; data: string }, plan: YieldPlan): Promise<YieldOperationError | null> {
    const deposit = operation.action === 'deposit';
    const checkBound = market.source === 'vaultprov-v2' && deposit;
    const amount = normalizeYieldAmount(operation.amount, operation.action).baseUnits;
    const [simulation, allowance, preview] = (
      await gateway.callAtLatestBlock([
        { from: wallet, to: call.to as Hex, data: call.data as Hex },
        ...(deposit ? [allowanceRead(market, wallet)] : []),
        ...(checkBound ? [vaultRead(market, { previewDeposit: amount! })] : []),
      ])
    ).results;
    if (deposit && (uintResult(allowance) ?? 0n) < amount!) {
      return { code: 'SIGNING_REQUIRES_ACTION', message: "The wallet's allowance no longer covers the deposit (spent by another transaction); nothing was signed" };
    }
    if (checkBound) {
      const shares = uintResult(preview);
      if (shares !== null && shares < BigInt(plan.minShares!)) return boundFailure(shares, BigInt(plan.minShares!));
    }
    return simulation!.ok ? null : simulationFailure(market, operation, simulation!);
  }

  /**
   * While an approval waits for its two confirmations: prepares the action (gas, fees, nonce) once
   * it simulates cleanly, so that only signing is left when the approval is confirmed. Anything in
   * the way (the approval not in a block yet, the supply cap, the RPC) leaves the action to the
   * usual preparation after the confirmations; nothing is signed here.
   */
  async function prepareActionAhead(operation: YieldOperationRecord, market: YieldMarket, gateway: EvmGateway) {
    try {
      const wallet = await walletAddress(operation);
      const call = actionCall(market, operation, normalizeYieldAmount(operation.amount, operation.action).baseUnits, operation.plan, wallet);
      if (await actionRefusal(operation, market, gateway, wallet, call, operation.plan)) return;
      await steps.prepare(owner, operation, gateway, wallet, call, operation.plan);
    } catch (error) {
      if (!(error instanceof ChainUnavailableError || error instanceof BroadcastRejectedError)) {
        deps.logger?.warn({ operationId: operation.id, err: { message: (error as Error).message } }, 'yield action could not be prepared ahead');
      }
    }
  }

  async function prepareAndSign(operation: YieldOperationRecord, gateway: EvmGateway, wallet: Hex, call: YieldCall, plan: YieldPlan) {
    let prepared;
    try {
      prepared = await steps.prepare(owner, operation, gateway, wallet, call, plan);
    } catch (error) {
      if (error instanceof BroadcastRejectedError && error.code === 'EXECUTION_FAILED') {
        return pause(operation, { code: 'SIGNING_REQUIRES_ACTION', message: `The ${call.phase} would fail if signed now (${error.message.slice(0, 200)}); nothing was signed` }, plan);
      }
      throw error;
    }
    if (!prepared) return;
    return signPrepared(operation, gateway, { ...plan, prepared });
  }

  async function signPrepared(operation: YieldOperationRecord, gateway: EvmGateway, plan: YieldPlan) {
    const prepared = plan.prepared!;
    try {
      return afterSend(operation, await steps.signAndSend(owner, { ...operation, plan }, gateway, prepared, after(FOLLOW_MS)));
    } catch (error) {
      if (!isSigningRefusal(error)) throw error;
      if (error.code === 'POLICY_DENIED') {
        return failUnsigned({ ...operation, plan }, { code: 'POLICY_DENIED', message: `${error.message}: ${JSON.stringify(error.extra?.deniedBy ?? [])}`.slice(0, 1000) });
      }
      if (error.code === 'POLICY_REVIEW_REQUIRED' && typeof error.extra?.reviewId === 'string') {
        // The prepared transaction (nonce and fees) stays: the same request after approval signs exactly it.
        return pause(operation, { code: 'POLICY_REVIEW_REQUIRED', message: error.message, reviewId: error.extra.reviewId }, plan);
      }
      return pause(operation, { code: 'SIGNING_REQUIRES_ACTION', message: error.message }, plan);
    }
  }

  async function advance(operation: YieldOperationRecord) {
    const market = deps.markets().find((m) => m.id === operation.marketId);
    const gateway = gateways.evm(operation.chainId);
    if (!market || !gateway) {
      return pause(operation, { code: 'SIGNING_REQUIRES_ACTION', message: `Market ${operation.marketId} is not configured in this deployment any more` });
    }
    if (operation.status === 'submitted') return follow(operation, market, gateway);
    return prepareNext(operation, market, gateway);
  }

  async function advanceOrRetry(operation: YieldOperationRecord) {
    try {
      await advance(operation);
    } catch (error) {
      // Temporary failures (RPC, database) before signing keep the operation where it is: retried with backoff.
      const attempt = operation.consecutiveErrors + 1;
      if (!(error instanceof ChainUnavailableError)) deps.logger?.warn({ operationId: operation.id, err: { message: (error as Error).message } }, 'yield operation step failed');
      // A confirmed approval whose action could not be prepared: nothing is in flight any more.
      const last = operation.steps.at(-1);
      const idle = operation.status === 'submitted' && last?.phase === 'approval' && last.recordStatus === 'confirmed';
      const retry = { nextRunAt: after(exponentialBackoffMs(attempt, RETRY_BASE_MS, RETRY_MAX_MS)), consecutiveErrors: attempt };
      await save(operation, idle ? { ...retry, status: 'pending' } : retry).catch(() => false);
    }
  }

  return {
    batchSize,
    async runOnce(): Promise<YieldRunResult> {
      const now = clock.now();
      const leased = await store.leaseDue(owner, now, new Date(now.getTime() + leaseMs), batchSize);
      if (leased.length === 0) return { leased: 0 };
      // A slow run keeps its operations: only a dead process's leases run out. The runs of one
      // process share `owner`: an operation whose lease ran out while another run of this process
      // still works on it (a stalled machine) is left to that run, never worked twice at once.
      const mine = leased.filter((o) => !inFlight.has(o.id));
      const working = new Set(mine.map((o) => o.id));
      for (const id of working) inFlight.add(id);
      const renewal = setInterval(() => void store.renewLeases(owner, [...working], after(leaseMs)).catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
      renewal.unref();
      try {
        await Promise.all(
          mine.map(async (operation) => {
            try {
              await advanceOrRetry(operation);
            } finally {
              // Done with it (its lease released by the save): another run may take it up again.
              working.delete(operation.id);
              inFlight.delete(operation.id);
            }
          }),
        );
      } finally {
        clearInterval(renewal);
      }
      return { leased: leased.length };
    },
  };
}

export type YieldRunner = ReturnType<typeof createYieldRunner>;
