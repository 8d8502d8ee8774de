/**
 * What a batch of calls needs from its chain (implemented over viem in '@wallet/chains', wired by
 * the API): the wallet's delegation and a simulation of the batch as the wallet would run it.
 */
import type { Hex } from 'viem';

/** One call of a batch, as the delegation's `executeBatch` takes it. */
export interface ChainCall {
  to: Hex;
  value: bigint;
  data: Hex;
}

/** The wallet's delegation on the chain, read at the latest block. */
export interface DelegationRead {
  /** The wallet's code is `0xef0100 ‖ delegate`. */
  delegated: boolean;
  /** The delegate contract has code on this chain (without it no batch can run). */
  delegateDeployed: boolean;
}

/** A simulation's outcome: the gas it used (eth_estimateGas), or the revert data it ended with. */
export type BatchSimulation = { ok: true; gas: bigint } | { ok: false; revertData: Hex; message: string };

export interface BatchCallChain {
  readonly chainId: number;
  /** Simple7702Account: what the wallet delegates to, and what runs `executeBatch`. */
  readonly delegate: Hex;
  delegation(wallet: Hex): Promise<DelegationRead>;
  /**
   * The wallet's self-call `executeBatch(calls)` as eth_call and eth_estimateGas from the wallet at
   * the latest block; a wallet not delegated yet is simulated with the delegate's code in place (a
   * state override), as the transaction carrying its authorization will run. Transport and node
   * failures throw ChainUnavailableError; only the batch's own revert answers `ok: false`.
   */
  simulate(wallet: Hex, data: Hex, delegated: boolean): Promise<BatchSimulation>;
}

/** The batch calls, per configured EVM chain (undefined: the chain is not configured). */
export type BatchCallChains = (chainId: number) => BatchCallChain | undefined;
