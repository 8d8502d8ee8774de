/**
 * What transfers, broadcasts and the monitor need from a chain's RPC. packages/chains implements
 * these over JSON-RPC (batched where the RPC allows); tests point them at the local devnets or at
 * a fault-injecting proxy in front of them.
 *
 * Errors: every method throws `ChainUnavailableError` when the RPC could not answer (network
 * error, time-out, HTTP 5xx, JSON-RPC internal error), so callers can tell "no evidence" apart from
 * "evidence of failure". `sendRawTransaction`/`sendTransaction` throw `BroadcastRejectedError` when
 * the node answered and refused the transaction.
 */

export type Hex = `0x${string}`;

export class ChainUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainUnavailableError';
  }
}

/**
 * The node refused the transaction. `code` is machine-readable: INSUFFICIENT_NATIVE_BALANCE,
 * NONCE_TOO_LOW, NONCE_TOO_HIGH, REPLACEMENT_UNDERPRICED, FEE_TOO_LOW, GAS_LIMIT_TOO_LOW,
 * EXECUTION_FAILED (simulation/preflight revert), BLOCKHASH_NOT_FOUND, ALREADY_PROCESSED,
 * INVALID_TRANSACTION, or REJECTED when nothing more specific matches.
 */
export class BroadcastRejectedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BroadcastRejectedError';
  }
}

export interface EvmReceipt {
  transactionHash: Hex;
  status: 'success' | 'reverted';
  blockNumber: bigint;
  blockHash: Hex;
  from: Hex;
}

export interface EvmFeeSuggestion {
  /** Base fee of the latest block. */
  baseFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** 2 * baseFee + priority, the usual EIP-1559 ceiling. */
  maxFeePerGas: bigint;
  /** eth_gasPrice, for type 0. */
  gasPrice: bigint;
}

/** One eth_call's outcome: its return data, or the revert (its data when the node gave it). */
export type EvmCallResult = { ok: true; data: Hex } | { ok: false; revertData: Hex | null; message: string };

/** Read-only contract calls answered at one block. */
export interface EvmCallSnapshot {
  blockNumber: bigint;
  /** Seconds since the epoch. */
  blockTimestamp: bigint;
  /** In input order. */
  results: EvmCallResult[];
}

export interface EvmGateway {
  readonly chainId: number;
  /** eth_getTransactionCount(address, 'pending'). */
  getPendingNonce(address: Hex): Promise<number>;
  /** eth_estimateGas; a revert during estimation throws BroadcastRejectedError('EXECUTION_FAILED'). */
  estimateGas(call: { from: Hex; to: Hex; value: bigint; data?: Hex }): Promise<bigint>;
  getFeeSuggestion(): Promise<EvmFeeSuggestion>;
  getBalance(address: Hex): Promise<bigint>;
  /** eth_sendRawTransaction; returns the transaction hash. */
  sendRawTransaction(serialized: Hex): Promise<Hex>;

  // Monitor: one JSON-RPC batch per call.
  /** Latest and finalized block numbers (finalized via eth_getBlockByNumber('finalized')). */
  getHeads(): Promise<{ latest: bigint; finalized: bigint }>;
  /**
   * The heads and the fee suggestion in one JSON-RPC batch (the monitor's run when a managed record
   * may need a fee replacement). `fees` is null when the node did not answer the fee reads; a
   * failed heads read throws as `getHeads` does.
   */
  getHeadsAndFees(): Promise<{ latest: bigint; finalized: bigint; fees: EvmFeeSuggestion | null }>;
  /** Receipts in input order; null where the node has none. */
  getReceipts(hashes: Hex[]): Promise<(EvmReceipt | null)[]>;
  /** Whether the node knows each transaction, pending in its pool or mined (eth_getTransactionByHash), in input order. */
  getTransactionsKnown(hashes: Hex[]): Promise<boolean[]>;
  /** The canonical block hash at each height (eth_getBlockByNumber), null if beyond the head. */
  getBlockHashes(numbers: bigint[]): Promise<(Hex | null)[]>;
  /** eth_getTransactionCount(address, blockTag) for each address, in input order. */
  getNonces(addresses: Hex[], blockTag: 'latest' | 'finalized'): Promise<number[]>;

  /**
   * Contract reads and simulations (eth_call) as one snapshot: the latest block is read first, then
   * every call runs at that block number, in one JSON-RPC batch. A call that reverts is a result
   * (`ok: false`), not an error: simulations are expected to fail sometimes (yield positions and
   * withdrawals).
   *
   * With `at.blockNumber` (a previous snapshot's), the calls run at that block instead of the latest,
   * and the snapshot carries that block's timestamp: a second round whose calls depend on the first
   * round's answers (the vault position: share balance, then previewRedeem and redeem of it). A
   * block the node does not have (beyond its head, pruned) throws ChainUnavailableError.
   */
  callAtLatestBlock(calls: { from?: Hex; to: Hex; data: Hex }[], at?: { blockNumber: bigint }): Promise<EvmCallSnapshot>;
}

export interface SolanaSignatureStatus {
  slot: bigint;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
  /** The transaction error as JSON (null when it succeeded). */
  err: unknown;
}

export interface SolanaTransferPlan {
  from: string;
  to: string;
  /** Lamports for SOL, base units for SPL. */
  amount: bigint;
  /** SPL mint; absent for SOL. */
  mint?: string;
  recentBlockhash: string;
}

export interface SolanaGateway {
  /** e.g. SOLANA_DEVNET. */
  readonly network: string;
  getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }>;
  /** isBlockhashValid at `processed` commitment. */
  isBlockhashValid(blockhash: string): Promise<boolean>;
  /** Finalized block height (for proving a blockhash expired). */
  getFinalizedBlockHeight(): Promise<bigint>;
  /** getSlot at `finalized` commitment: a signature status at this slot or below can be finalized. */
  getFinalizedSlot(): Promise<bigint>;
  getBalance(address: string): Promise<bigint>;
  /** Base units of an SPL mint in the owner's associated token account (0 when it has none). */
  getTokenBalance(owner: string, mint: string): Promise<bigint>;
  /** Decimals of an SPL mint, or null when the account is not a mint. */
  getMintDecimals(mint: string): Promise<number | null>;
  /** Whether the account exists (e.g. the recipient's associated token account). */
  accountExists(address: string): Promise<boolean>;
  /**
   * A durable-nonce account's state: null if the account does not exist or is not an initialized
   * nonce account.
   */
  getNonceAccount(address: string): Promise<{ authority: string; nonce: string } | null>;
  /** Fee in lamports for a compiled message (base64), null if its blockhash is unknown. */
  getFeeForMessage(messageBase64: string): Promise<bigint | null>;
  /**
   * An unsigned wire transaction (base64) paying `amount` from `from` to `to`: a System transfer,
   * or for SPL a TransferChecked between associated token accounts, preceded by an idempotent
   * creation of the recipient's associated token account when it does not exist (fee payer: from).
   */
  buildTransfer(plan: SolanaTransferPlan): Promise<{ transaction: string; createsTokenAccount: boolean }>;
  /** sendTransaction (base64 wire, preflight on); returns the signature (base58). */
  sendTransaction(wireBase64: string): Promise<string>;
  /** getSignatureStatuses with searchTransactionHistory; null where unknown; batched (≤ 256 per call). */
  getSignatureStatuses(signatures: string[]): Promise<(SolanaSignatureStatus | null)[]>;
}

/** The chains this deployment talks to, by how requests name them. */
export interface ChainGateways {
  evm(chainId: number): EvmGateway | undefined;
  solana(network: string): SolanaGateway | undefined;
}
