/**
 * The domain's `SponsoredOperationChain` over one chain's RPC: the building blocks of this folder
 * bound to the chain's sponsorship configuration (EntryPoint, delegate, paymaster).
 */
import { encodeExecuteBatch, OperationRejectedError, type SponsoredOperationChain, type SponsoredTransferFacts, type SponsorshipChainConfig } from '@wallet/domain';
import { createBatchCallChain } from '../calls/batch-chain.ts';
import { getAddress, type Address } from 'viem';
import { readClient } from './client.ts';
import { readDelegation } from './delegation.ts';
import { entryPointNonce } from './entry-point-nonce.ts';
import { findUserOperationEvent } from './find-user-operation-event.ts';
import { userOperationHash, withOwnerSignature } from './owner-signature.ts';
import { UserOperationRejectedError } from './rejection.ts';
import { prepareHandleOpsTransaction } from './relayer-transaction.ts';
import { relayerTransaction } from './relayer-signing.ts';
import { parseUserOperation, serializeUserOperation } from './serialize.ts';
import { simulateTokenTransfer } from './simulate-transfer.ts';
import { sponsorshipHash, withSponsorSignature } from './sponsorship-hash.ts';
import { bundlerGasPrice, estimateUserOperationGas, sendUserOperation } from './bundler.ts';
import { BundlerRpcError, BundlerUnreachableError } from './bundler-rpc.ts';
import { DEFAULT_SPONSORED_GAS_LIMITS } from './constants.ts';
import { AUTHORIZATION_GAS, relayerPreVerificationGas } from './pre-verification-gas.ts';
import { buildSponsoredTransfer, maxOperationCostWei, type BuildSponsoredTransferParams } from './user-operation.ts';
import { userOperationOutcome } from './user-operation-outcome.ts';

/**
 * What a bundler adds to an operation's gas beyond the relayer's limits, for admission's estimate
 * before anything is signed (alto on anvil: preVerificationGas 78,846 on a first operation,
 * paymaster verification below the default); the worker's draft uses the bundler's own figures.
 */
const BUNDLER_GAS_ALLOWANCE = 120_000n;

export function createSponsoredOperationChain(rpcUrl: string, config: SponsorshipChainConfig): SponsoredOperationChain {
  const { chainId } = config;
  const entryPoint = getAddress(config.entryPoint);
  const delegate = getAddress(config.delegate);
  const paymaster = getAddress(config.paymaster);
  const client = () => readClient(rpcUrl);
  const bundlerUrl = config.submission === 'bundler' ? config.bundlerUrl : undefined;
  const batches = createBatchCallChain({ chainId, rpcUrl, delegate });

  /**
   * A batch's callGasLimit: its simulated gas (the wallet's self-call, with the delegation in place)
   * plus 20 %; throws when the batch would revert (admission and the worker simulate first).
   */
  async function batchCallGas(t: SponsoredTransferFacts & { calls: NonNullable<SponsoredTransferFacts['calls']> }): Promise<bigint> {
    const { delegated } = await batches.delegation(t.sender);
    const simulation = await batches.simulate(t.sender, encodeExecuteBatch(t.calls), delegated);
    if (!simulation.ok) throw new OperationRejectedError(`the batch would revert: ${simulation.message}`, null);
    return (simulation.gas * 120n) / 100n;
  }

  /** The fees to build with: the bundler's floor (its v2 API refuses less), else the node's suggestion. */
  async function fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    if (bundlerUrl) return (await bundlerGasPrice(bundlerUrl)).standard;
    return client().estimateFeesPerGas();
  }

  /** The operation with the bundler's gas limits (it estimates with stub signatures), or the default limits. */
  async function build({ callGasLimit, ...params }: BuildSponsoredTransferParams & { callGasLimit?: bigint | undefined }) {
    const call = callGasLimit !== undefined ? { callGasLimit } : {};
    if (!bundlerUrl) {
      // Counted from this operation's own calldata (its calls, its gas limits and fees).
      const draft = buildSponsoredTransfer({ ...params, gasLimits: call });
      return { ...draft, preVerificationGas: relayerPreVerificationGas(draft) };
    }
    const op = buildSponsoredTransfer({ ...params, gasLimits: call });
    return buildSponsoredTransfer({ ...params, gasLimits: await estimateUserOperationGas(bundlerUrl, op, entryPoint) });
  }

  return {
    chainId,
    entryPoint,
    paymaster,

    async simulate(t) {
      if (t.calls) {
        const { delegated } = await batches.delegation(t.sender);
        const simulation = await batches.simulate(t.sender, encodeExecuteBatch(t.calls), delegated);
        return simulation.ok ? { ok: true } : { ok: false, message: simulation.message };
      }
      const result = await simulateTokenTransfer(rpcUrl, { token: t.token, from: t.sender, to: t.recipient, amount: t.amount });
      return result.ok ? { ok: true } : { ok: false, message: result.message };
    },

    async authorizationNeeded(sender) {
      const state = await readDelegation(rpcUrl, sender, delegate);
      if (state.delegated) return null;
      if (state.isContract) throw new OperationRejectedError(`${sender} holds contract code and cannot be delegated`, null);
      return { chainId, delegate, nonce: state.nonce };
    },

    async draft(t, authorization) {
      const [nonce, fee, callGasLimit] = await Promise.all([entryPointNonce(rpcUrl, entryPoint, t.sender), fees(), t.calls ? batchCallGas({ ...t, calls: t.calls }) : undefined]);
      const op = await build({
        ...(t.calls ? { callData: encodeExecuteBatch(t.calls), callGasLimit } : {}),
        sender: t.sender,
        token: t.token,
        recipient: t.recipient,
        amount: t.amount,
        nonce,
        paymaster,
        maxFeePerGas: fee.maxFeePerGas,
        maxPriorityFeePerGas: fee.maxPriorityFeePerGas,
        ...(authorization
          ? { authorization: { address: getAddress(authorization.delegate), chainId: authorization.chainId, nonce: authorization.nonce, r: authorization.r, s: authorization.s, yParity: authorization.yParity } }
          : {}),
      });
      return { operation: serializeUserOperation(op), nonce, maxCostWei: maxOperationCostWei(op) };
    },

    async maxCostEstimate(t) {
      const [fee, callGasLimit] = await Promise.all([fees(), t.calls ? batchCallGas({ ...t, calls: t.calls }) : DEFAULT_SPONSORED_GAS_LIMITS.callGasLimit]);
      // The operation as the worker will draft it, with its authorization (the costlier case) for a relayer.
      const draft = buildSponsoredTransfer({
        ...(t.calls ? { callData: encodeExecuteBatch(t.calls) } : {}),
        sender: t.sender,
        token: t.token,
        recipient: t.recipient,
        amount: t.amount,
        nonce: 0n,
        paymaster,
        maxFeePerGas: fee.maxFeePerGas,
        maxPriorityFeePerGas: fee.maxPriorityFeePerGas > fee.maxFeePerGas ? fee.maxFeePerGas : fee.maxPriorityFeePerGas,
        gasLimits: { callGasLimit },
      });
      const extra = bundlerUrl ? BUNDLER_GAS_ALLOWANCE : relayerPreVerificationGas(draft) + AUTHORIZATION_GAS;
      return maxOperationCostWei({ ...DEFAULT_SPONSORED_GAS_LIMITS, callGasLimit, maxFeePerGas: fee.maxFeePerGas }) + extra * fee.maxFeePerGas;
    },

    ...(bundlerUrl
      ? {
          async sendToBundler(operation: string) {
            try {
              return { kind: 'accepted' as const, userOperationHash: await sendUserOperation(bundlerUrl, parseUserOperation(operation), entryPoint) };
            } catch (error) {
              if (error instanceof BundlerUnreachableError) return { kind: 'unknown' as const, message: error.message };
              if (error instanceof UserOperationRejectedError) return { kind: 'rejected' as const, code: error.code, message: error.message };
              if (error instanceof BundlerRpcError) return { kind: 'refused' as const, message: error.message };
              throw error;
            }
          },
        }
      : {}),

    sponsorshipHash: (operation, window) => sponsorshipHash(parseUserOperation(operation), { ...window, chainId }),
    withSponsorSignature: (operation, window, signature) => serializeUserOperation(withSponsorSignature(parseUserOperation(operation), { ...window, signature })),
    userOperationHash: (operation) => userOperationHash(parseUserOperation(operation), chainId, entryPoint),
    withOwnerSignature: (operation, signature) => serializeUserOperation(withOwnerSignature(parseUserOperation(operation), signature)),
    entryPointNonce: (sender) => entryPointNonce(rpcUrl, entryPoint, sender),

    operationFeesNow: fees,

    operationFees(operation) {
      const op = parseUserOperation(operation);
      return { maxFeePerGas: op.maxFeePerGas, maxPriorityFeePerGas: op.maxPriorityFeePerGas };
    },

    repriced(operation, fees) {
      const op = { ...parseUserOperation(operation), ...fees, paymasterData: '0x' as const, signature: '0x' as const };
      if (op.maxPriorityFeePerGas > op.maxFeePerGas) throw new RangeError('maxPriorityFeePerGas must not exceed maxFeePerGas');
      return { operation: serializeUserOperation(op), maxCostWei: maxOperationCostWei(op) };
    },

    async relayerTransaction(operation, relayer, fields) {
      try {
        const request = await prepareHandleOpsTransaction(rpcUrl, { op: parseUserOperation(operation), relayer, entryPoint });
        return relayerTransaction(request, { chainId, ...fields });
      } catch (error) {
        if (error instanceof UserOperationRejectedError) throw new OperationRejectedError(error.message, error.code);
        throw error;
      }
    },

    async findEvent(hash, fromBlock) {
      const found = await findUserOperationEvent(rpcUrl, entryPoint, hash, fromBlock);
      if (!found) return null;
      return { transactionHash: found.txHash, blockNumber: found.blockNumber, blockHash: found.blockHash, success: found.success, actualGasCost: found.actualGasCost };
    },

    async deliveryProven(transactionHash, hash, t) {
      // A batch is atomic: the operation's success (checked before this) is its delivery.
      if (t.calls) return true;
      const receipt = await client().getTransactionReceipt({ hash: transactionHash });
      const outcome = userOperationOutcome(receipt, { userOpHash: hash, token: t.token as Address, from: t.sender as Address, to: t.recipient as Address, amount: t.amount, entryPoint });
      return outcome?.transferProven ?? false;
    },
  };
}
