/** TestUSDC (6 decimals, owner-only mint) on a local devnet. */
import { getAddress, type Abi, type Address, type Hex } from 'viem';
import artifact from './artifacts/TestUSDC.json' with { type: 'json' };
import { devClients, pendingNonce, withSendLock } from './dev-account.ts';

export { LOCAL_FUNDER_PRIVATE_KEY } from './dev-account.ts';

export const TEST_USDC_ABI = artifact.abi as Abi;
export const TEST_USDC_BYTECODE = artifact.bytecode as Hex;
export const TEST_USDC_DECIMALS = 6;

/** Address of TestUSDC when it is the first transaction of dev account #0 on a fresh anvil (nonce 0). */
export const LOCAL_TEST_USDC_ADDRESS: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/** Deploys TestUSDC from dev account #0 (which becomes its owner); resolves with the mined, checksummed address. */
export async function deployTestUsdc(rpcUrl: string, chainId: number): Promise<Address> {
  const c = devClients(rpcUrl, chainId);
  const hash = await withSendLock(rpcUrl, async () =>
    c.wallet.deployContract({
      abi: TEST_USDC_ABI,
      bytecode: TEST_USDC_BYTECODE,
      args: [],
      nonce: await pendingNonce(c),
    }),
  );
  const receipt = await c.public.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`TestUSDC deployment ${hash} failed (status ${receipt.status})`);
  }
  return getAddress(receipt.contractAddress); // receipts carry it lower-cased
}
