/**
 * The domain's `SponsoredOperationChain` over one chain's RPC: the building blocks of this folder
 * bound to the chain's sponsorship configuration (EntryPoint, delegate, paymaster).
 */
import { OperationRejectedError, type SponsoredOperationChain, type SponsorshipChainConfig } from '@wallet/domain';
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
import { buildSponsoredTransfer, maxOperationCostWei } from './user-operation.ts';
import { userOperationOutcome } from './user-operation-outcome.ts';

export function createSponsoredOperationChain(rpcUrl: string, config: SponsorshipChainConfig): SponsoredOperationChain {
  const { chainId } = config;
  const entryPoint = getAddress(config.entryPoint);
  const delegate = getAddress(config.delegate);
  const paymaster = getAddress(config.paymaster);
  const client = () => readClient(rpcUrl);

  return {
    chainId,
    entryPoint,
    paymaster,

    async simulate(t) {
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
      const [nonce, fees] = await Promise.all([entryPointNonce(rpcUrl, entryPoint, t.sender), client().estimateFeesPerGas()]);
      const op = buildSponsoredTransfer({
        sender: t.sender,
        token: t.token,
        recipient: t.recipient,
        amount: t.amount,
        nonce,
        paymaster,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        ...(authorization
          ? { authorization: { address: getAddress(authorization.delegate), chainId: authorization.chainId, nonce: authorization.nonce, r: authorization.r, s: authorization.s, yParity: authorization.yParity } }
          : {}),
      });
      return { operation: serializeUserOperation(op), nonce, maxCostWei: maxOperationCostWei(op) };
    },

    sponsorshipHash: (operation, window) => sponsorshipHash(parseUserOperation(operation), { ...window, chainId }),
    withSponsorSignature: (operation, window, signature) => serializeUserOperation(withSponsorSignature(parseUserOperation(operation), { ...window, signature })),
    userOperationHash: (operation) => userOperationHash(parseUserOperation(operation), chainId, entryPoint),
    withOwnerSignature: (operation, signature) => serializeUserOperation(withOwnerSignature(parseUserOperation(operation), signature)),
    entryPointNonce: (sender) => entryPointNonce(rpcUrl, entryPoint, sender),

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
      const receipt = await client().getTransactionReceipt({ hash: transactionHash });
      const outcome = userOperationOutcome(receipt, { userOpHash: hash, token: t.token as Address, from: t.sender as Address, to: t.recipient as Address, amount: t.amount, entryPoint });
      return outcome?.transferProven ?? false;
    },
  };
}
