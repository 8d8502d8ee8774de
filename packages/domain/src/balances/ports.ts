/**
 * What the balances use case needs from chains and records. packages/chains implements the chain
 * reads (balance-reads.ts there: batched JSON-RPC); the API implements the records port over the
 * transaction records. Errors: a chain that cannot answer throws `ChainUnavailableError`.
 */
import type { EvmCallResult, Hex } from '../transactions/gateways.ts';

/** The native balance and read-only calls, all answered at one block. */
export interface EvmBalanceSnapshot {
  blockNumber: bigint;
  native: bigint;
  /** In input order; a revert is a result, not an error. */
  results: EvmCallResult[];
}

export interface EvmBalanceReads {
  /** eth_blockNumber, then eth_getBalance(owner) and every eth_call at that block in ONE JSON-RPC batch. */
  read(owner: Hex, calls: { to: Hex; data: Hex }[]): Promise<EvmBalanceSnapshot>;
}

/** One SPL token account of the owner (both token programs). */
export interface SolanaTokenAccount {
  mint: string;
  /** The token program that owns the account (Token or Token-2022). */
  program: string;
  amount: bigint;
  decimals: number;
  /** The slot the account list of its program was read at. */
  slot: bigint;
}

export interface SolanaBalanceSnapshot {
  lamports: bigint;
  /** The slot getBalance answered at. */
  slot: bigint;
  tokenAccounts: SolanaTokenAccount[];
  /** The slot per token program's account list (the slot of a token without an account). */
  programSlots: Record<string, bigint>;
}

export interface SolanaBalanceReads {
  /** getBalance and getTokenAccountsByOwner for both token programs in one batch, then the mints' decimals. */
  read(owner: string): Promise<SolanaBalanceSnapshot>;
}

/** The balance readers of the configured chains, named as requests name them. */
export interface BalanceChains {
  evm(chainId: number): EvmBalanceReads | undefined;
  solana(network: string): SolanaBalanceReads | undefined;
}

/** Records port: the ERC-20 contracts the wallet's transaction records moved on a chain. */
export interface MovedTokens {
  erc20(projectId: string, walletId: string, chainId: string): Promise<string[]>;
}

/** Solana's token programs, both read. */
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
