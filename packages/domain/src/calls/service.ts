/**
 * POST /v1/wallets/{walletId}/calls, self-paid: 1 to MAX_CALLS calls run atomically in ONE
 * transaction from the EVM wallet to itself, calling `executeBatch` on its EIP-7702 delegation to
 * Simple7702Account. A wallet not delegated yet carries its signed authorization (a type 4
 * transaction); a delegated one sends type 2.
 *
 * In order: the body (strict), the policies on every call when a delegation must be signed first
 * (a denied batch signs nothing, not even the delegation), the simulation (eth_call and
 * eth_estimateGas of the batch as the wallet; a revert is 422 CALLS_SIMULATION_REVERTED with the
 * failing call's index and decoded reason, and nothing is signed), the nonce, the delegation's
 * signature, then the transaction's signature through the signing pipeline (policies judge every
 * call, the spend of the whole batch is reserved once) with the record (`intentKind: "calls"`,
 * holding the calls), the nonce and the audit rows in that signature's own commit (broadcast.ts),
 * then the broadcast. From there the record is an EVM record like any other: monitored,
 * auto-retried, in history and search, announced by webhooks.
 *
 * A delegation carried by the wallet's own transaction uses the nonce after it (the sender's nonce
 * moves before the authorization is processed), so that nonce is taken from the allocator too.
 */
import { getAddress, keccak256, type Hex } from 'viem';
import { ApiError, conflict, invalidRequest } from '../errors.ts';
import type { BatchCall, SignatureWrite, TransactionRecord, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { parseInput } from '../shared/zod.ts';
import { parseSigningInput, type SigningContext } from '../signing/pipeline.ts';
import { assertSignable } from '../signing/signers.ts';
import { DEFAULT_CEILING_MULTIPLIER } from '../transactions/attempts.ts';
import { decideAutoRetry } from '../transactions/auto-retry-policy.ts';
import { createBroadcaster, NO_RECORD_FIELDS, type SignedBroadcast } from '../transactions/broadcast.ts';
import {
  assertNoNonceHold,
  beforeRecord,
  createChainTargets,
  DEFAULT_NONCE_RESERVATION_MS,
  signingChain,
  transactionIntent,
  type BroadcastResult,
  type ChainTarget,
  type TransactionServiceDeps,
} from '../transactions/context.ts';
import { decodeBatchRevert, encodeExecuteBatch, type BatchRevert } from './encoding.ts';
import type { BatchCallChain, BatchCallChains } from './ports.ts';
import { callsInput, type CallsInput } from './schemas.ts';
import type { SponsoredBatches } from './sponsored.ts';
import { toTransactionDetail } from '../transactions/history.ts';
import type { SponsoredAccepted } from '../transactions/context.ts';

import { CALLS_ACTION, CALLS_AUTHORIZATION_ACTION } from './actions.ts';

export { CALLS_ACTION, CALLS_AUTHORIZATION_ACTION };

const GAS_BUFFER_PERCENT = 120n;
/** What carrying the authorization adds to the simulated gas (EIP-7702's 25,000 per authorization, and the delegate's cold load). */
const AUTHORIZATION_GAS = 30_000n;
/** Without a simulation (tests only): a generous limit per call. */
const UNSIMULATED_GAS_PER_CALL = 150_000n;

export interface CallsServiceDeps
  extends Pick<
    TransactionServiceDeps,
    'store' | 'pipeline' | 'gateways' | 'directory' | 'clock' | 'loadWallet' | 'loadWalletWithShares' | 'yieldHolds' | 'openNonceHold' | 'nonceReservationMs' | 'crashAt' | 'autoRetryDefault'
  > {
  chains: BatchCallChains;
  /** Takes a nonce out of the allocator (the delegation's); false when another request holds it. */
  burnNonce(walletId: string, chainId: string, nonce: number): Promise<boolean>;
  /** Tests only: sign the batch without simulating it (so that a reverting batch reaches the chain). */
  skipSimulation?: boolean;
  /** Sponsored batches (`sponsored: true`); absent: they answer 409 CALLS_UNAVAILABLE. */
  sponsored?: SponsoredBatches;
}

const sponsoredAccepted = (record: TransactionRecord): SponsoredAccepted => ({ status: 202, body: toTransactionDetail(record), headers: { 'x-transaction-id': record.id } });

/** 422 CALLS_SIMULATION_REVERTED: the batch would revert; nothing was signed. */
export function simulationReverted(revert: BatchRevert): ApiError {
  const where = revert.callIndex === null ? 'The batch' : `Call ${revert.callIndex} of the batch`;
  return new ApiError(422, 'CALLS_SIMULATION_REVERTED', `${where} would revert (${revert.reason}); nothing was signed or sent`, {
    callIndex: revert.callIndex,
    reason: revert.reason,
    revertData: revert.revertData,
  });
}

const callsUnavailable = (message: string) => new ApiError(409, 'CALLS_UNAVAILABLE', message);

/** The intent of the batch's transaction, as the pipeline and policies see it. */
function batchContext(caller: Caller, wallet: WalletRecord, target: ChainTarget, calls: BatchCall[], body: unknown): SigningContext {
  return { caller, wallet, operation: 'transaction', action: CALLS_ACTION, chain: signingChain(target), transfer: null, input: parseSigningInput('EVM', 'transaction', body), calls };
}

export function createCallsService(deps: CallsServiceDeps) {
  const { store, pipeline } = deps;
  const targets = createChainTargets(deps);
  const broadcast = createBroadcaster({ store, clock: deps.clock, isDevnet: targets.isDevnet, crashAt: deps.crashAt });
  const nonceReservationMs = deps.nonceReservationMs ?? DEFAULT_NONCE_RESERVATION_MS;

  /** A retried request whose first run recorded its batch: never a second signature or transaction. */
  async function earlierBatch(caller: Caller): Promise<BroadcastResult | SponsoredAccepted | null> {
    if (!caller.idempotencyKey) return null;
    const record = await store.findByIdempotencyKey(caller.projectId, caller.idempotencyKey);
    if (!record) return null;
    if (record.intentKind !== 'calls') throw conflict('Idempotency-Key was already used by another kind of request; use a new key for this request');
    // A sponsored batch is only read: the worker carries it on.
    if (record.executionMode === 'sponsored') return sponsoredAccepted(record);
    return broadcast.replay(record, targets.evm(Number(record.chainId)));
  }

  function parsed(wallet: WalletRecord, body: unknown): { input: CallsInput; target: ChainTarget & { type: 'EVM' }; chain: BatchCallChain; calls: BatchCall[] } {
    if (wallet.type !== 'EVM') throw invalidRequest(`calls are supported for EVM wallets, not ${wallet.type}`);
    const input = parseInput(callsInput, body);
    const target = targets.evm(input.chainId);
    const chain = deps.chains(input.chainId);
    if (!chain) throw callsUnavailable(`Batched calls are not available on chain ${input.chainId} in this deployment`);
    const calls = input.calls.map((c) => ({ to: getAddress(c.to), value: c.value ?? '0', data: (c.data ?? '0x').toLowerCase() }));
    return { input, target, chain, calls };
  }

  async function fees(target: ChainTarget & { type: 'EVM' }, input: CallsInput) {
    if (input.maxFeePerGas !== undefined && input.maxPriorityFeePerGas !== undefined) return { maxFeePerGas: input.maxFeePerGas, maxPriorityFeePerGas: input.maxPriorityFeePerGas };
    const suggestion = await beforeRecord(target.gateway.getFeeSuggestion());
    const maxFeePerGas = input.maxFeePerGas ?? suggestion.maxFeePerGas.toString();
    let maxPriorityFeePerGas = input.maxPriorityFeePerGas ?? suggestion.maxPriorityFeePerGas.toString();
    if (BigInt(maxPriorityFeePerGas) > BigInt(maxFeePerGas)) maxPriorityFeePerGas = maxFeePerGas;
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  async function autoRetryOf(caller: Caller, input: CallsInput, maxFeePerGas: string) {
    if (input.maxFeePerGas !== undefined || input.maxPriorityFeePerGas !== undefined) return { autoRetry: false, autoRetryMaxFeePerGas: null };
    const project = (await deps.autoRetryDefault?.(caller)) ?? null;
    const decision = decideAutoRetry(input.autoRetry, project, { enabled: true, ceiling: (BigInt(maxFeePerGas) * DEFAULT_CEILING_MULTIPLIER).toString() });
    return { autoRetry: decision.enabled, autoRetryMaxFeePerGas: decision.ceiling };
  }

  /** The gas limit: the body's, else the simulation's plus 20 % (and the delegation's cost when it is carried). */
  async function gasLimitOf(chain: BatchCallChain, wallet: Hex, data: Hex, delegated: boolean, input: CallsInput, count: number): Promise<bigint> {
    const extra = delegated ? 0n : AUTHORIZATION_GAS;
    if (deps.skipSimulation) return input.gasLimit !== undefined ? BigInt(input.gasLimit) : UNSIMULATED_GAS_PER_CALL * BigInt(count) + extra;
    const simulation = await beforeRecord(chain.simulate(wallet, data, delegated));
    if (!simulation.ok) throw simulationReverted(decodeBatchRevert(simulation.revertData, count));
    return input.gasLimit !== undefined ? BigInt(input.gasLimit) : (simulation.gas * GAS_BUFFER_PERCENT) / 100n + extra;
  }

  /** The wallet's signed delegation to the chain's delegate at `nonce`, its signature kept for the record's commit. */
  async function signDelegation(caller: Caller, wallet: WalletRecord, shares: Parameters<typeof pipeline.sign>[0]['shares'], target: ChainTarget, chain: BatchCallChain, nonce: number) {
    const body = { authorization: { address: chain.delegate, chainId: chain.chainId, nonce } };
    const signed = await pipeline.signAndRecord(
      { caller, wallet, shares, operation: 'authorization', action: CALLS_AUTHORIZATION_ACTION, chain: signingChain(target), transfer: null, input: parseSigningInput('EVM', 'authorization', body) },
      async (_result, signature) => signature,
    );
    const r = signed!.result.response as { address: string; chainId: number; nonce: number; r: string; s: string; yParity: 0 | 1 };
    return { authorization: { address: r.address, chainId: r.chainId, nonce: r.nonce, r: r.r, s: r.s, yParity: r.yParity }, signature: signed!.recorded };
  }

  return {
    async send(caller: Caller, walletId: string, body: unknown): Promise<BroadcastResult | SponsoredAccepted> {
      const { wallet, shares } = await deps.loadWalletWithShares(caller, walletId);
      assertSignable(wallet);
      const earlier = await earlierBatch(caller);
      if (earlier) return earlier;
      const { input, target, chain, calls } = parsed(wallet, body);
      const chainId = chain.chainId;
      await assertNoNonceHold(deps, wallet.id, chainId);
      const from = wallet.address as Hex;
      const data = encodeExecuteBatch(calls.map((c) => ({ to: c.to as Hex, value: BigInt(c.value), data: c.data as Hex })));
      const delegation = await beforeRecord(chain.delegation(from));
      if (!delegation.delegateDeployed) throw callsUnavailable(`No Simple7702Account is deployed at ${chain.delegate} on chain ${chainId}`);
      if (input.sponsored === true) {
        if (!deps.sponsored) throw callsUnavailable('Sponsored batches are not available in this deployment; send the batch without sponsored, paid by the wallet');
        const simulate = async () => {
          if (deps.skipSimulation) return;
          const simulation = await beforeRecord(chain.simulate(from, data, delegation.delegated));
          if (!simulation.ok) throw simulationReverted(decodeBatchRevert(simulation.revertData, calls.length));
        };
        return sponsoredAccepted(await deps.sponsored.admit(caller, wallet, chainId, calls, simulate));
      }
      const fee = await fees(target, input);
      const bodyAt = (nonce: number, gasLimit: bigint, authorizationList?: unknown[]) => ({
        transaction: { to: from, value: '0', data, chainId, type: authorizationList ? 4 : 2, nonce, gasLimit: gasLimit.toString(), ...fee, ...(authorizationList ? { authorizationList } : {}) },
      });
      // A delegation is signed before the batch: a batch the policies deny must not get that far.
      if (!delegation.delegated) await pipeline.precheck(batchContext(caller, wallet, target, calls, bodyAt(0, 21_000n)));
      const gasLimit = await gasLimitOf(chain, from, data, delegation.delegated, input, calls.length);
      const autoRetry = await autoRetryOf(caller, input, fee.maxFeePerGas);

      const reservation = await store.allocateNonce(wallet.id, target.chainId, await beforeRecord(target.gateway.getPendingNonce(from)), nonceReservationMs);
      deps.crashAt?.('nonce-allocated');
      const nonce = reservation.nonce;
      let burned = false;
      let signed: SignedBroadcast;
      try {
        let authorization: { authorization: unknown; signature: SignatureWrite } | null = null;
        if (!delegation.delegated) {
          burned = await deps.burnNonce(wallet.id, target.chainId, nonce + 1);
          if (!burned) {
            const taken = conflict('Another transaction of this wallet took the nonce its delegation needs while this batch was being prepared; nothing was signed: send the request again');
            taken.releasesIdempotencyKey = true;
            throw taken;
          }
          authorization = await signDelegation(caller, wallet, shares, target, chain, nonce + 1);
        }
        const intent = { ...transactionIntent({ caller, wallet, shares, action: CALLS_ACTION, target, transfer: null }, bodyAt(nonce, gasLimit, authorization ? [authorization.authorization] : undefined)), calls };
        signed = await broadcast.recordSigned(
          pipeline,
          intent,
          (signedTransaction) => ({
            caller,
            wallet,
            intentKind: 'calls',
            target,
            hash: keccak256(signedTransaction as Hex),
            fields: { ...NO_RECORD_FIELDS, nonce, calls, ...autoRetry },
            reservation,
          }),
          authorization ? [authorization.signature] : [],
        );
      } catch (error) {
        // Nothing was recorded: both nonces go back to the allocator (the record would have taken them).
        await store.releaseNonce(wallet.id, target.chainId, nonce, reservation.reservationId);
        if (burned) await store.releaseNonce(wallet.id, target.chainId, nonce + 1);
        throw error;
      }
      return broadcast.sendSigned(signed);
    },

    /** The intent the batch would sign, for dry runs: validated like the route, built, not signed. */
    async preview(caller: Caller, walletId: string, body: unknown): Promise<SigningContext> {
      const wallet = await deps.loadWallet(caller, walletId);
      assertSignable(wallet);
      const { target, chain, calls } = parsed(wallet, body);
      const data = encodeExecuteBatch(calls.map((c) => ({ to: c.to as Hex, value: BigInt(c.value), data: c.data as Hex })));
      const transaction = { to: wallet.address, value: '0', data, chainId: chain.chainId, type: 2, nonce: 0, gasLimit: '21000', maxFeePerGas: '1', maxPriorityFeePerGas: '1' };
      return batchContext(caller, wallet, target, calls, { transaction });
    },
  };
}

export type CallsService = ReturnType<typeof createCallsService>;
