/**
 * Test helper (import from '@wallet/chains/testing'): a viem local account plays the relayer and
 * sends a prepared handleOps transaction. The service signs through its own signer instead.
 */
import type { Hex, LocalAccount, TransactionReceipt } from 'viem';
import { readClient } from './client.ts';
import { relayerTransaction, relayerTransactionDigest, signedRelayerTransaction } from './relayer-signing.ts';
import type { HandleOpsRequest } from './relayer-transaction.ts';

/** Signs the request's 32-byte digest with `relayer`, broadcasts it, and waits for its receipt. */
export async function sendRelayerTransaction(
  rpcUrl: string,
  relayer: LocalAccount,
  request: HandleOpsRequest,
  fees: { chainId: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
): Promise<{ txHash: Hex; receipt: TransactionReceipt }> {
  const client = readClient(rpcUrl);
  const nonce = await client.getTransactionCount({ address: relayer.address, blockTag: 'pending' });
  const tx = relayerTransaction(request, { ...fees, nonce });
  const signature = await relayer.sign!({ hash: relayerTransactionDigest(tx) });
  const txHash = await client.sendRawTransaction({ serializedTransaction: signedRelayerTransaction(tx, signature) });
  const receipt = await client.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50, timeout: 30_000 });
  return { txHash, receipt };
}
