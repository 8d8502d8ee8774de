/**
 * The transaction a relayer EOA sends to include one signed operation: `EntryPoint.handleOps([op],
 * beneficiary)`, type 4 with the op's authorization in its authorizationList when it carries one.
 * Its gas limit comes from eth_estimateGas, which also runs the EntryPoint's validation: an op the
 * EntryPoint would refuse (AA25 nonce already used, AA34 sponsor signature, AA24 owner signature…)
 * throws UserOperationRejectedError here and nothing is sent.
 */
import { encodeFunctionData, getAddress, type Address, type Hex, type SignedAuthorization } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { readClient } from './client.ts';
import { ENTRY_POINT_V08_ADDRESS } from './constants.ts';
import { entryPointRejection } from './rejection.ts';
import { packUserOperation, type SponsoredUserOperation } from './user-operation.ts';

export interface HandleOpsRequest {
  to: Address;
  data: Hex;
  gas: bigint;
  /** Present (one entry) when the op carries the wallet's EIP-7702 authorization: send a type-4 transaction. */
  authorizationList?: SignedAuthorization[];
}

export interface PrepareHandleOpsParams {
  /** The op with paymaster data and owner signature. */
  op: SponsoredUserOperation;
  /** The relayer EOA that will send the transaction. */
  relayer: Address;
  /** Receives the gas refund from the paymaster's deposit; default the relayer. */
  beneficiary?: Address;
  entryPoint?: Address;
}

/** Headroom on the estimate: the op's inner call runs with whatever gas the estimate's last probe left. */
const GAS_HEADROOM_PERCENT = 20n;

export async function prepareHandleOpsTransaction(rpcUrl: string, p: PrepareHandleOpsParams): Promise<HandleOpsRequest> {
  if (p.op.signature === '0x' || p.op.paymasterData === '0x') throw new Error('the op must be sponsored and signed by its owner before it is relayed');
  const to = getAddress(p.entryPoint ?? ENTRY_POINT_V08_ADDRESS);
  const relayer = getAddress(p.relayer);
  const data = encodeFunctionData({ abi: entryPoint08Abi, functionName: 'handleOps', args: [[packUserOperation(p.op)], getAddress(p.beneficiary ?? relayer)] });
  const authorizationList = p.op.authorization ? [p.op.authorization] : undefined;
  let estimate: bigint;
  try {
    estimate = await readClient(rpcUrl).estimateGas({ account: relayer, to, data, ...(authorizationList ? { authorizationList } : {}) });
  } catch (err) {
    throw entryPointRejection(err) ?? err;
  }
  return { to, data, gas: (estimate * (100n + GAS_HEADROOM_PERCENT)) / 100n, ...(authorizationList ? { authorizationList } : {}) };
}
