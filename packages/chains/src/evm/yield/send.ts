/**
 * Sequential transactions from one account while anvil automines (each one mined when sent), with
 * the nonce tracked locally: the deployment's 60-odd transactions take about a second this way.
 */
import { createPublicClient, createWalletClient, getAddress, http, type Abi, type Account, type Address, type Hex, type TransactionReceipt } from 'viem';
import { rpc } from '../deployments.ts';
import { devClients, localChain, pendingNonce, withSendLock } from '../dev-account.ts';
import type { Artifact } from './artifacts.ts';

export type Sender = ReturnType<typeof sender>;

/** `account` must not send from anywhere else while the sender is in use (hold `withSendLock` for dev account #0). */
export function sender(rpcUrl: string, chainId: number, account: Account, startNonce: number) {
  const chain = localChain(rpcUrl, chainId);
  const transport = http(rpcUrl);
  const pub = createPublicClient({ chain, transport, pollingInterval: 50 });
  const wallet = createWalletClient({ account, chain, transport, pollingInterval: 50 });
  let nonce = startNonce;

  const mined = async (hash: Hex, what: string): Promise<TransactionReceipt> => {
    // With automine the receipt exists once the send returns; otherwise wait for it.
    const receipt = await pub.getTransactionReceipt({ hash }).catch(() => pub.waitForTransactionReceipt({ hash, timeout: 30_000 }));
    if (receipt.status !== 'success') throw new Error(`${what}: transaction ${hash} reverted`);
    return receipt;
  };

  return {
    rpcUrl,
    chainId,
    account,
    public: pub,
    get nonce() {
      return nonce;
    },
    async deploy(artifact: Artifact, args: readonly unknown[] = [], what = 'deploy'): Promise<Address> {
      const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, nonce: nonce++ });
      const receipt = await mined(hash, what);
      if (!receipt.contractAddress) throw new Error(`${what}: no contract address in ${hash}`);
      return getAddress(receipt.contractAddress);
    },
    async call(address: Address, abi: Abi | readonly unknown[], functionName: string, args: readonly unknown[] = [], value?: bigint): Promise<TransactionReceipt> {
      const request = { address, abi: abi as Abi, functionName, args, account, ...(value ? { value } : {}) };
      // The bare estimate sometimes runs MetaMorpho and Aave calls out of gas (63/64 rule): 25 % on top.
      // And 100k more: Morpho accrues interest (an IRM call and its writes) only when the block time
      // moved on since the market's last update, so an estimate in the same second as that update
      // leaves the accrual out of a transaction mined a second later (a loaded machine saw `repay` revert).
      const gas = ((await pub.estimateContractGas(request)) * 125n) / 100n + 100_000n;
      const hash = await wallet.writeContract({ ...request, gas, nonce: nonce++ });
      return mined(hash, `${functionName} on ${address}`);
    },
    read<T>(address: Address, abi: Abi | readonly unknown[], functionName: string, args: readonly unknown[] = []): Promise<T> {
      return pub.readContract({ address, abi: abi as Abi, functionName, args }) as Promise<T>;
    },
  };
}

/** Mines each transaction as it arrives (anvil `evm_setAutomine`), for a fast batch of setup transactions. */
export async function withAutomine<T>(rpcUrl: string, fn: () => Promise<T>): Promise<T> {
  const wasAutomine = await rpc<boolean>(rpcUrl, 'anvil_getAutomine');
  if (wasAutomine) return fn();
  const interval = await rpc<number | null>(rpcUrl, 'anvil_getIntervalMining').catch(() => null);
  // anvil reports (and restores) interval mining in whole seconds: a 0.25 s chain would come back wrong.
  if (interval === 0) throw new Error('a devnet deployment (yield markets, sponsorship contracts) needs automine or a whole-second block time (blockTimeSeconds ≥ 1)');
  await rpc(rpcUrl, 'evm_setAutomine', [true]);
  try {
    return await fn();
  } finally {
    // Back to interval mining (anvil takes whole seconds here); automine off when there was none.
    if (interval) await rpc(rpcUrl, 'evm_setIntervalMining', [interval]);
    else await rpc(rpcUrl, 'evm_setAutomine', [false]);
  }
}

/** Runs `fn` with a sender for dev account #0 (holding its send lock) while anvil automines. */
export function asDeployer<T>(rpcUrl: string, chainId: number, fn: (s: Sender) => Promise<T>): Promise<T> {
  return withSendLock(rpcUrl, () =>
    withAutomine(rpcUrl, async () => {
      const c = devClients(rpcUrl, chainId);
      return fn(sender(rpcUrl, chainId, c.account, await pendingNonce(c)));
    }),
  );
}
