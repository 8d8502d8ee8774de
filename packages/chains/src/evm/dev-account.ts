/**
 * Anvil's well-known dev account #0 and the per-RPC send lock shared by the deployer and the
 * faucet, so concurrent callers in this process never race for the same nonce.
 */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Account,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** Anvil dev account #0 (address 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266). Local devnets only. */
export const LOCAL_FUNDER_PRIVATE_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export function localChain(rpcUrl: string, chainId: number): Chain {
  return defineChain({
    id: chainId,
    name: `anvil-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export interface DevClients {
  account: Account;
  wallet: WalletClient<Transport, Chain, Account>;
  public: PublicClient<Transport, Chain>;
}

/** Fresh viem clients for one call; short polling (viem's default is 4 s) since anvil mines fast. */
export function devClients(rpcUrl: string, chainId: number): DevClients {
  const chain = localChain(rpcUrl, chainId);
  const account = privateKeyToAccount(LOCAL_FUNDER_PRIVATE_KEY);
  const transport = http(rpcUrl);
  return {
    account,
    wallet: createWalletClient({ account, chain, transport, pollingInterval: 100 }),
    public: createPublicClient({ chain, transport, pollingInterval: 100 }),
  };
}

const chains = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` after every earlier `withSendLock` for the same rpcUrl has settled. Hold it only while
 * reading the nonce and submitting (not while waiting for receipts).
 */
export function withSendLock<T>(rpcUrl: string, fn: () => Promise<T>): Promise<T> {
  const prev = chains.get(rpcUrl) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => undefined);
  chains.set(rpcUrl, tail);
  void tail.then(() => {
    if (chains.get(rpcUrl) === tail) chains.delete(rpcUrl);
  });
  return run;
}

/** Next nonce of the dev account including transactions still in anvil's pool. */
export async function pendingNonce(clients: DevClients): Promise<number> {
  return clients.public.getTransactionCount({ address: clients.account.address, blockTag: 'pending' });
}
