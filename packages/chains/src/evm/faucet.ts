/** Funds a wallet on a local devnet from dev account #0: native coin and/or TestUSDC (minted). */
import { encodeFunctionData, type Address, type Hash } from 'viem';
import { devClients, pendingNonce, withSendLock, type DevClients } from './dev-account.ts';
import { TEST_USDC_ABI } from './test-usdc.ts';

export interface FundEvmWalletParams {
  rpcUrl: string;
  chainId: number;
  usdcAddress: Address;
  to: Address;
  /** Native amount in wei; 0/omitted sends nothing. */
  nativeWei?: bigint;
  /** TestUSDC base units (6 decimals), minted to `to`; 0/omitted mints nothing. */
  usdcBaseUnits?: bigint;
}

export interface FundEvmWalletResult {
  nativeTxHash?: Hash;
  usdcTxHash?: Hash;
}

/** How far above the suggested fee cap the faucet's cap is (it still pays only base fee + tip). */
const FEE_CAP_HEADROOM = 20n;

/**
 * anvil drops a pooled transaction whose fee cap is below the base fee of the block it mines, and a
 * test may raise the next base fee at any moment (`anvil_setNextBlockBaseFeePerGas`): with viem's
 * usual cap (1.2 × base fee + tip) a funding sent just before would vanish, and its nonce go to the
 * next funding.
 */
async function spikeProofFees(c: DevClients) {
  const { maxFeePerGas, maxPriorityFeePerGas } = await c.public.estimateFeesPerGas();
  return { maxFeePerGas: maxFeePerGas * FEE_CAP_HEADROOM, maxPriorityFeePerGas };
}

/**
 * Submits both transactions under the per-rpcUrl send lock (explicit, consecutive nonces), then
 * waits for both receipts outside the lock; throws if either reverts.
 */
export async function fundEvmWallet(p: FundEvmWalletParams): Promise<FundEvmWalletResult> {
  const nativeWei = p.nativeWei ?? 0n;
  const usdc = p.usdcBaseUnits ?? 0n;
  if (nativeWei < 0n || usdc < 0n) throw new Error('fundEvmWallet: amounts must be >= 0');
  if (nativeWei === 0n && usdc === 0n) return {};
  const c = devClients(p.rpcUrl, p.chainId);

  const result = await withSendLock(p.rpcUrl, async () => {
    let nonce = await pendingNonce(c);
    const fees = await spikeProofFees(c);
    const out: FundEvmWalletResult = {};
    if (nativeWei > 0n) {
      out.nativeTxHash = await c.wallet.sendTransaction({ to: p.to, value: nativeWei, nonce: nonce++, ...fees });
    }
    if (usdc > 0n) {
      out.usdcTxHash = await c.wallet.sendTransaction({
        to: p.usdcAddress,
        data: encodeFunctionData({ abi: TEST_USDC_ABI, functionName: 'mint', args: [p.to, usdc] }),
        nonce: nonce++,
        ...fees,
      });
    }
    return out;
  });

  const hashes = [result.nativeTxHash, result.usdcTxHash].filter((h): h is Hash => h !== undefined);
  const receipts = await Promise.all(hashes.map((hash) => c.public.waitForTransactionReceipt({ hash, timeout: 30_000 })));
  receipts.forEach((r, i) => {
    // viem answers with the receipt of a transaction that replaced ours (same sender and nonce): the wallet got nothing.
    if (r.transactionHash !== hashes[i]) throw new Error(`funding transaction ${hashes[i]} was replaced by ${r.transactionHash}`);
    if (r.status !== 'success') throw new Error(`funding transaction ${r.transactionHash} reverted`);
  });
  return result;
}
