import {
  getBase58Decoder,
  getBase64Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  isAddress as isSolanaAddress,
  type Address,
} from '@solana/kit';
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, formatUnits, isAddress as isEvmAddress, keccak256, type Hex } from 'viem';
import type { ChainDirectory, ChainInfo } from '../chains/service.ts';
import type { EncryptedShare, KekProvider } from '../custody/shares.ts';
import { ApiError, conflict, invalidRequest, notFound } from '../errors.ts';
import type { AuditStore, IntentKind, NewTransactionRecord, TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { keysetPage, type Page } from '../shared/cursor.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import { assertSignable, signatureAudit, signers, signWithWallet } from '../signing/service.ts';
import type { WalletService } from '../wallets/service.ts';
import { broadcastedEvents, resolvedEvents } from './events.ts';
import { transactionSignedEvent } from '../events/events.ts';
import {
  BroadcastRejectedError,
  ChainUnavailableError,
  type ChainGateways,
  type EvmGateway,
  type SolanaGateway,
} from './gateways.ts';
import {
  cancelBody,
  listTransactionsQuery,
  transferBody,
  type TransactionDetailView,
  type TransactionSummaryView,
  type TransferInput,
} from './schemas.ts';

/** When the monitor first looks at a new record. */
export const FIRST_CHECK_DELAY_MS = 1_000;
const GAS_BUFFER_PERCENT = 120n;
const NATIVE_TRANSFER_GAS = 21_000n;
/** Rent-exempt minimum of an SPL token account (165 bytes), paid when a transfer creates one. */
const TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const ADVANCE_NONCE_INSTRUCTION = 4;

const erc20TransferAbi = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ type: 'bool' }],
  },
] as const;

const rpcUnavailable = (error: unknown) =>
  new ApiError(503, 'RPC_UNAVAILABLE', `The chain's RPC could not be reached; retry later (${(error as Error).message.slice(0, 200)})`);

/** Maps gateway errors raised before any record exists to API errors. */
async function beforeRecord<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ChainUnavailableError) throw rpcUnavailable(error);
    if (error instanceof BroadcastRejectedError) {
      throw new ApiError(400, error.code === 'EXECUTION_FAILED' ? 'EXECUTION_FAILED' : 'INVALID_REQUEST', `The node refused the transaction: ${error.message.slice(0, 300)}`);
    }
    throw error;
  }
}

export function toTransactionSummary(record: TransactionRecord): TransactionSummaryView {
  const monitoring = record.monitoring;
  return {
    transactionId: record.id,
    walletId: record.walletId,
    walletType: record.walletType,
    intentKind: record.intentKind,
    status: record.status,
    createdAt: record.createdAt.toISOString(),
    chainId: record.chainId,
    network: record.network,
    ...(record.to !== null ? { to: record.to } : {}),
    ...(record.value !== null ? { value: record.value } : {}),
    ...(record.tokenAddress !== null ? { tokenAddress: record.tokenAddress } : {}),
    hash: record.hash,
    blockNumber: record.blockNumber === null ? null : record.blockNumber.toString(),
    blockHash: record.blockHash,
    failureStage: record.failureStage,
    failureCode: record.failureCode,
    failureMessage: record.failureMessage,
    submittedAt: record.submittedAt?.toISOString() ?? null,
    resolvedAt: record.resolvedAt?.toISOString() ?? null,
    ...(monitoring
      ? {
          monitoring: {
            chainOutcome: monitoring.chainOutcome ?? null,
            winningHash: monitoring.winningHash ?? null,
            winningStatus: monitoring.winningStatus ?? null,
            ...(monitoring.state ? { state: monitoring.state } : {}),
          },
        }
      : {}),
  };
}

export function toTransactionDetail(record: TransactionRecord): TransactionDetailView {
  return {
    ...toTransactionSummary(record),
    nonce: record.nonce,
    ...(record.cancellationOf ? { cancellationOf: record.cancellationOf } : {}),
  };
}

export interface TransactionServiceDeps {
  store: TransactionStore;
  audit: AuditStore;
  keks: KekProvider;
  gateways: ChainGateways;
  directory: ChainDirectory;
  clock: Clock;
  loadWallet: WalletService['loadWallet'];
  loadWalletWithShares: WalletService['loadWalletWithShares'];
}

type ChainTarget = { type: 'EVM'; gateway: EvmGateway; chainId: string } | { type: 'SOLANA'; gateway: SolanaGateway; network: string };

type RecordFields = Pick<
  NewTransactionRecord,
  'to' | 'value' | 'tokenAddress' | 'nonce' | 'recentBlockhash' | 'lastValidBlockHeight' | 'nonceAccount' | 'cancellationOf'
>;

export interface BroadcastResult {
  body: { signedTransaction: string; txHash: string; transactionId: string };
  headers: Record<string, string>;
}

/**
 * Transfers, broadcasts of signed transactions, manual cancellation and the transaction history.
 * Every broadcast writes its record (status `pending`) before the node sees the transaction, so a
 * crash between the two leaves a record the monitor still resolves.
 */
export function createTransactionService(deps: TransactionServiceDeps) {
  const { store, audit, keks, gateways, directory, clock } = deps;

  function chainInfo(target: { type: 'EVM' | 'SOLANA'; chainId?: string | null; network?: string | null }): ChainInfo | undefined {
    return directory
      .list()
      .find((c) => c.type === target.type && (target.type === 'EVM' ? c.chainId === target.chainId : c.network === target.network));
  }

  const isDevnet = (record: Pick<TransactionRecord, 'walletType' | 'chainId' | 'network'>) =>
    chainInfo({ type: record.walletType, chainId: record.chainId, network: record.network })?.isDevnet ?? false;

  function evmTarget(chainId: number | undefined): ChainTarget & { type: 'EVM' } {
    if (chainId === undefined) throw invalidRequest('Invalid request: chainId: required for EVM wallets');
    const gateway = gateways.evm(chainId);
    if (!gateway) throw invalidRequest(`Invalid request: chainId: chain ${chainId} is not configured in this deployment (see GET /v1/chains)`);
    return { type: 'EVM', gateway, chainId: String(chainId) };
  }

  function solanaTarget(network: string | undefined): ChainTarget & { type: 'SOLANA' } {
    const name = network ?? 'SOLANA';
    const gateway = gateways.solana(name);
    if (!gateway) throw invalidRequest(`Invalid request: network: ${name} is not configured in this deployment (see GET /v1/chains)`);
    return { type: 'SOLANA', gateway, network: name };
  }

  async function sign(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], input: unknown, action: string) {
    const op = signers[wallet.type].transaction!;
    const parsed = parseInput(op.body, input);
    const result = await signWithWallet(keks, wallet, shares, op, parsed);
    await audit.append(signatureAudit(caller, wallet, shares, action, result.digest, result.chainId), [
      transactionSignedEvent(caller.projectId, wallet, result.chainId ?? null, clock.now()),
    ]);
    return result.response;
  }

  /**
   * Records and sends a signed transaction. The node's refusal or a lost answer leaves the record
   * `failed` at stage `broadcast` and answers with its id; acceptance makes it `submitted`.
   */
  async function broadcast(
    caller: Caller,
    wallet: WalletRecord,
    intentKind: IntentKind,
    target: ChainTarget,
    signedTransaction: string,
    hash: string,
    fields: RecordFields,
    allocatedNonce: boolean,
  ): Promise<BroadcastResult> {
    const now = clock.now();
    const record = await store.create(
      {
        id: randomUUID(),
        projectId: caller.projectId,
        partnerId: caller.partnerId,
        walletId: wallet.id,
        walletType: target.type,
        intentKind,
        status: 'pending',
        chainId: target.type === 'EVM' ? target.chainId : null,
        network: target.type === 'SOLANA' ? target.network : null,
        fromAddress: wallet.address,
        hash,
        failureStage: null,
        failureCode: null,
        failureMessage: null,
        monitoring: null,
        requestId: caller.requestId,
        apiKeyId: caller.apiKeyId,
        submittedAt: null,
        nextCheckAt: new Date(now.getTime() + FIRST_CHECK_DELAY_MS),
        ...fields,
      },
      [],
    );
    const devnet = isDevnet(record);
    const headers = { 'x-transaction-id': record.id };
    try {
      if (target.type === 'EVM') await target.gateway.sendRawTransaction(signedTransaction as Hex);
      else await target.gateway.sendTransaction(signedTransaction);
    } catch (error) {
      const accepted = error instanceof BroadcastRejectedError && error.code === 'ALREADY_PROCESSED';
      if (!accepted) {
        const rejected = error instanceof BroadcastRejectedError;
        if (!rejected && !(error instanceof ChainUnavailableError)) throw error;
        const failureCode = rejected ? error.code : 'RPC_UNAVAILABLE';
        const failureMessage = (error as Error).message.slice(0, 500);
        const at = clock.now();
        const failed = { ...record, status: 'failed' as const, failureStage: 'broadcast' as const, failureCode, failureMessage, resolvedAt: at, nextCheckAt: null };
        await store.update(record.id, failed, resolvedEvents(failed, devnet, at), 'pending');
        // A refused transaction never used its nonce: hand it out again. A lost answer may have.
        if (rejected && allocatedNonce && fields.nonce !== null && failureCode !== 'NONCE_TOO_LOW') {
          await store.releaseNonce(wallet.id, record.chainId!, fields.nonce);
        }
        throw new ApiError(
          rejected ? 400 : 502,
          'BROADCAST_FAILED',
          rejected ? `The node refused the transaction: ${failureMessage}` : `The broadcast's outcome is unknown: ${failureMessage}`,
          { transactionId: record.id, failureStage: 'broadcast', failureCode },
        );
      }
    }
    const at = clock.now();
    const submitted = { ...record, status: 'submitted' as const, submittedAt: at };
    // Only while still pending: the monitor may already have seen it land (and resolved it).
    await store.update(record.id, { status: 'submitted', submittedAt: at }, broadcastedEvents(submitted, devnet, at), 'pending');
    return { body: { signedTransaction, txHash: hash, transactionId: record.id }, headers };
  }

  // ------------------------------------------------------------------------------------------
  // EVM
  // ------------------------------------------------------------------------------------------

  function evmCall(wallet: WalletRecord, input: TransferInput) {
    for (const field of ['network'] as const) {
      if (input[field] !== undefined) throw invalidRequest(`Invalid request: ${field}: not allowed for EVM wallets`);
    }
    if (!isEvmAddress(input.to, { strict: false })) throw invalidRequest('Invalid request: to: not an EVM address');
    const kind = input.kind ?? (input.tokenAddress !== undefined ? 'ERC20' : 'NATIVE');
    if (kind === 'SPL') throw invalidRequest('Invalid request: kind: SPL is for Solana wallets; use NATIVE or ERC20');
    if (kind === 'ERC20' && input.tokenAddress === undefined) throw invalidRequest('Invalid request: tokenAddress: required for ERC20 transfers');
    if (kind === 'NATIVE' && input.tokenAddress !== undefined) throw invalidRequest('Invalid request: tokenAddress: not allowed for NATIVE transfers');
    if (input.tokenAddress !== undefined && !isEvmAddress(input.tokenAddress, { strict: false })) {
      throw invalidRequest('Invalid request: tokenAddress: not an EVM address');
    }
    const type = input.type ?? 2;
    if (type === 2 && input.gasPrice !== undefined) throw invalidRequest('Invalid request: gasPrice: only for type 0; use maxFeePerGas and maxPriorityFeePerGas');
    if (type === 0 && (input.maxFeePerGas !== undefined || input.maxPriorityFeePerGas !== undefined)) {
      throw invalidRequest('Invalid request: maxFeePerGas: only for type 2; use gasPrice');
    }
    const value = BigInt(input.value);
    const from = wallet.address as Hex;
    const call =
      kind === 'NATIVE'
        ? { from, to: input.to as Hex, value, data: undefined }
        : {
            from,
            to: input.tokenAddress as Hex,
            value: 0n,
            data: encodeFunctionData({ abi: erc20TransferAbi, functionName: 'transfer', args: [input.to as Hex, value] }),
          };
    return { kind, type, value, call };
  }

  async function evmFees(gateway: EvmGateway, input: TransferInput, type: 0 | 2) {
    const needSuggestion = type === 2 ? input.maxFeePerGas === undefined || input.maxPriorityFeePerGas === undefined : input.gasPrice === undefined;
    const suggestion = needSuggestion ? await beforeRecord(gateway.getFeeSuggestion()) : undefined;
    if (type === 0) return { gasPrice: input.gasPrice ?? suggestion!.gasPrice.toString() };
    const maxFeePerGas = input.maxFeePerGas ?? suggestion!.maxFeePerGas.toString();
    let maxPriorityFeePerGas = input.maxPriorityFeePerGas ?? suggestion!.maxPriorityFeePerGas.toString();
    if (BigInt(maxPriorityFeePerGas) > BigInt(maxFeePerGas)) {
      if (input.maxPriorityFeePerGas !== undefined) throw invalidRequest('Invalid request: maxPriorityFeePerGas: must not exceed maxFeePerGas');
      maxPriorityFeePerGas = maxFeePerGas;
    }
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  async function evmTransfer(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], input: TransferInput): Promise<BroadcastResult> {
    const target = evmTarget(input.chainId);
    const { type, value, call } = evmCall(wallet, input);
    if (value === 0n) throw invalidRequest('Invalid request: value: must be greater than zero');
    const gasLimit = input.gasLimit ?? ((await beforeRecord(target.gateway.estimateGas(call))) * GAS_BUFFER_PERCENT) / 100n;
    const fees = await evmFees(target.gateway, input, type);
    const allocated = input.nonce === undefined;
    const nonce = allocated
      ? await store.allocateNonce(wallet.id, target.chainId, await beforeRecord(target.gateway.getPendingNonce(wallet.address as Hex)))
      : input.nonce!;
    let signedTransaction: string;
    try {
      const response = await sign(
        caller,
        wallet,
        shares,
        {
          transaction: {
            to: call.to,
            value: call.value.toString(),
            ...(call.data ? { data: call.data } : {}),
            chainId: Number(target.chainId),
            type,
            nonce,
            gasLimit: gasLimit.toString(),
            ...fees,
          },
        },
        'wallet.sign.transfer',
      );
      signedTransaction = response.signedTransaction as string;
    } catch (error) {
      if (allocated) await store.releaseNonce(wallet.id, target.chainId, nonce);
      throw error;
    }
    return broadcast(caller, wallet, 'transfer', target, signedTransaction, keccak256(signedTransaction as Hex), {
      to: input.to,
      value: input.value,
      tokenAddress: input.tokenAddress ?? null,
      nonce,
      recentBlockhash: null,
      lastValidBlockHeight: null,
      nonceAccount: null,
      cancellationOf: null,
    }, allocated);
  }

  async function evmEstimate(wallet: WalletRecord, input: TransferInput) {
    const target = evmTarget(input.chainId);
    const { kind, type, value, call } = evmCall(wallet, input);
    const chain = chainInfo(target);
    let warning: string | undefined;
    let gasLimit: bigint;
    if (input.gasLimit !== undefined) gasLimit = BigInt(input.gasLimit);
    else {
      try {
        gasLimit = ((await target.gateway.estimateGas(call)) * GAS_BUFFER_PERCENT) / 100n;
      } catch (error) {
        if (error instanceof ChainUnavailableError) throw rpcUnavailable(error);
        gasLimit = kind === 'NATIVE' ? NATIVE_TRANSFER_GAS : 65_000n;
        warning = `Gas estimation failed (${(error as Error).message.slice(0, 200)}); the fee uses a typical gas limit and the transfer may fail`;
      }
    }
    const fees = await evmFees(target.gateway, input, type);
    const perGas = BigInt('gasPrice' in fees ? fees.gasPrice! : fees.maxFeePerGas);
    const nativeDecimals = chain?.nativeCurrency.decimals ?? 18;
    let tokenDecimals = nativeDecimals;
    if (kind === 'ERC20') {
      const usdc = chain?.usdc;
      if (usdc && usdc.address.toLowerCase() === input.tokenAddress!.toLowerCase()) tokenDecimals = usdc.decimals;
      else {
        tokenDecimals = 0;
        warning = [warning, 'Token decimals are not known to this deployment; transferAmount is in base units'].filter(Boolean).join('. ');
      }
    }
    return {
      estimatedFee: formatUnits(gasLimit * perGas, nativeDecimals),
      transferAmount: formatUnits(value, tokenDecimals),
      currency: chain?.nativeCurrency.symbol ?? 'ETH',
      gasLimit: gasLimit.toString(),
      ...fees,
      transactionType: type,
      ...(warning ? { warning } : {}),
    };
  }

  // ------------------------------------------------------------------------------------------
  // Solana
  // ------------------------------------------------------------------------------------------

  async function solanaPlan(wallet: WalletRecord, input: TransferInput) {
    for (const field of ['nonce', 'gasLimit', 'maxFeePerGas', 'maxPriorityFeePerGas', 'gasPrice', 'type'] as const) {
      if (input[field] !== undefined) throw invalidRequest(`Invalid request: ${field}: only for EVM wallets`);
    }
    const target = solanaTarget(input.network);
    if (!isSolanaAddress(input.to)) throw invalidRequest('Invalid request: to: not a Solana address');
    const kind = input.kind ?? (input.tokenAddress !== undefined ? 'SPL' : 'NATIVE');
    if (kind === 'ERC20') throw invalidRequest('Invalid request: kind: ERC20 is for EVM wallets; use NATIVE or SPL');
    if (kind === 'SPL' && input.tokenAddress === undefined) throw invalidRequest('Invalid request: tokenAddress: required for SPL transfers (the mint)');
    if (kind === 'NATIVE' && input.tokenAddress !== undefined) throw invalidRequest('Invalid request: tokenAddress: not allowed for NATIVE transfers');
    if (input.tokenAddress !== undefined && !isSolanaAddress(input.tokenAddress)) throw invalidRequest('Invalid request: tokenAddress: not a Solana address');
    const amount = BigInt(input.value);
    if (amount > 2n ** 64n - 1n) throw invalidRequest('Invalid request: value: larger than a u64');
    let decimals = 9;
    if (kind === 'SPL') {
      const mintDecimals = await beforeRecord(target.gateway.getMintDecimals(input.tokenAddress!));
      if (mintDecimals === null) throw invalidRequest('Invalid request: tokenAddress: not an SPL token mint on this network');
      decimals = mintDecimals;
    }
    const latest = await beforeRecord(target.gateway.getLatestBlockhash());
    const built = await beforeRecord(
      target.gateway.buildTransfer({ from: wallet.address, to: input.to, amount, mint: input.tokenAddress, recentBlockhash: latest.blockhash }),
    );
    return { target, kind, amount, decimals, latest, built };
  }

  async function solanaTransfer(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], input: TransferInput): Promise<BroadcastResult> {
    const plan = await solanaPlan(wallet, input);
    if (plan.amount === 0n) throw invalidRequest('Invalid request: value: must be greater than zero');
    const response = await sign(caller, wallet, shares, { transaction: plan.built.transaction, network: plan.target.network }, 'wallet.sign.transfer');
    const signedTransaction = response.signedTransaction as string;
    return broadcast(caller, wallet, 'transfer', plan.target, signedTransaction, solanaSignature(signedTransaction, wallet.address), {
      to: input.to,
      value: input.value,
      tokenAddress: input.tokenAddress ?? null,
      nonce: null,
      recentBlockhash: plan.latest.blockhash,
      lastValidBlockHeight: plan.latest.lastValidBlockHeight,
      nonceAccount: null,
      cancellationOf: null,
    }, false);
  }

  async function solanaEstimate(wallet: WalletRecord, input: TransferInput) {
    const plan = await solanaPlan(wallet, input);
    const message = getTransactionDecoder().decode(Buffer.from(plan.built.transaction, 'base64')).messageBytes;
    const fee = await beforeRecord(plan.target.gateway.getFeeForMessage(getBase64Decoder().decode(message)));
    const rent = plan.built.createsTokenAccount ? TOKEN_ACCOUNT_RENT_LAMPORTS : 0n;
    const warnings = [
      ...(fee === null ? ['The fee could not be computed for the current blockhash; the estimate assumes 5000 lamports per signature'] : []),
      ...(rent > 0n ? ["Includes the rent of the recipient's new token account"] : []),
    ];
    return {
      estimatedFee: formatUnits((fee ?? 5000n) + rent, 9),
      transferAmount: formatUnits(plan.amount, plan.decimals),
      currency: chainInfo(plan.target)?.nativeCurrency.symbol ?? 'SOL',
      ...(warnings.length ? { warning: warnings.join('. ') } : {}),
    };
  }

  /** The Solana pre-checks of a partner-built transaction, before signing or any record. */
  async function solanaPrecheck(gateway: SolanaGateway, base64: string) {
    let blockhash: string;
    let instructions: { programAddressIndex: number; accountIndices?: readonly number[]; data?: Uint8Array }[];
    let staticAccounts: readonly Address[];
    let lookups: readonly { lookupTableAddress: Address }[];
    try {
      const decoded = getTransactionDecoder().decode(Buffer.from(base64, 'base64'));
      const compiled = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes);
      if (compiled.version !== 'legacy' && compiled.version !== 0) throw new Error('unsupported version');
      blockhash = compiled.lifetimeToken;
      instructions = compiled.instructions as typeof instructions;
      staticAccounts = compiled.staticAccounts;
      lookups = ('addressTableLookups' in compiled ? compiled.addressTableLookups : undefined) ?? [];
    } catch {
      throw invalidRequest('transaction is not a decodable Solana transaction (base64 of a legacy or v0 wire transaction)');
    }
    for (const lookup of lookups) {
      if (!(await beforeRecord(gateway.accountExists(lookup.lookupTableAddress)))) {
        throw new ApiError(400, 'INVALID_NONCE', `Address lookup table ${lookup.lookupTableAddress} does not exist`);
      }
    }
    const first = instructions[0];
    const data = first?.data;
    const isAdvanceNonce =
      first !== undefined &&
      staticAccounts[first.programAddressIndex] === SYSTEM_PROGRAM &&
      data !== undefined &&
      data.length >= 4 &&
      Buffer.from(data).readUInt32LE(0) === ADVANCE_NONCE_INSTRUCTION;
    if (isAdvanceNonce) {
      const accountIndex = first.accountIndices?.[0];
      const nonceAccount = accountIndex === undefined ? undefined : staticAccounts[accountIndex];
      if (!nonceAccount) throw new ApiError(400, 'INVALID_NONCE', 'The durable nonce account must be a static account of the message');
      const state = await beforeRecord(gateway.getNonceAccount(nonceAccount));
      if (!state) throw new ApiError(400, 'INVALID_NONCE', `${nonceAccount} is not an initialized durable nonce account`);
      if (state.nonce !== blockhash) {
        throw new ApiError(400, 'INVALID_NONCE', 'The durable nonce has changed since the transaction was built; rebuild it with the current nonce');
      }
      return { blockhash, nonceAccount: nonceAccount as string };
    }
    let valid: boolean;
    try {
      valid = await gateway.isBlockhashValid(blockhash);
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw rpcUnavailable(error);
      throw error;
    }
    if (!valid) {
      throw new ApiError(400, 'BLOCKHASH_NOT_FOUND', 'The recent blockhash is unknown to the RPC or expired; refresh it and rebuild the transaction');
    }
    return { blockhash, nonceAccount: null };
  }

  return {
    isDevnet,

    async transfer(caller: Caller, walletId: string, body: unknown): Promise<BroadcastResult> {
      const { wallet, shares } = await deps.loadWalletWithShares(caller, walletId);
      assertSignable(wallet);
      const input = parseInput(transferBody, body);
      if (wallet.type === 'EVM') return evmTransfer(caller, wallet, shares, input);
      if (wallet.type === 'SOLANA') return solanaTransfer(caller, wallet, shares, input);
      throw invalidRequest(`transfer is supported for EVM and SOLANA wallets, not ${wallet.type}`);
    },

    async estimateFee(caller: Caller, walletId: string, body: unknown) {
      const wallet = await deps.loadWallet(caller, walletId);
      const input = parseInput(transferBody, body);
      if (wallet.type === 'EVM') return evmEstimate(wallet, input);
      if (wallet.type === 'SOLANA') return solanaEstimate(wallet, input);
      throw invalidRequest(`estimate-fee is supported for EVM and SOLANA wallets, not ${wallet.type}`);
    },

    /** sign-transaction with `broadcast: true`; `input` is the parsed body, `raw` the body as sent. */
    async broadcastSigned(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], input: Record<string, unknown>, raw: unknown): Promise<BroadcastResult> {
      if (wallet.type === 'EVM') {
        const tx = input.transaction as { chainId: number; to: string; value: string; nonce: number };
        const target = evmTarget(tx.chainId);
        const rawTx = (raw as { transaction?: Record<string, unknown> }).transaction ?? {};
        const signed = (await sign(caller, wallet, shares, input, 'wallet.sign.sign-transaction')).signedTransaction as string;
        return broadcast(caller, wallet, 'sign_transaction', target, signed, keccak256(signed as Hex), {
          // Stored only when the request carried `value`; calldata is not decoded.
          to: 'value' in rawTx ? tx.to : null,
          value: 'value' in rawTx ? tx.value : null,
          tokenAddress: null,
          nonce: tx.nonce,
          recentBlockhash: null,
          lastValidBlockHeight: null,
          nonceAccount: null,
          cancellationOf: null,
        }, false);
      }
      if (wallet.type !== 'SOLANA') throw invalidRequest(`broadcast: true is not supported for ${wallet.type} wallets`);
      const target = solanaTarget(input.network as string | undefined);
      const precheck = await solanaPrecheck(target.gateway, input.transaction as string);
      const signed = (await sign(caller, wallet, shares, input, 'wallet.sign.sign-transaction')).signedTransaction as string;
      return broadcast(caller, wallet, 'sign_transaction', target, signed, solanaSignature(signed, wallet.address), {
        to: null,
        value: null,
        tokenAddress: null,
        nonce: null,
        recentBlockhash: precheck.blockhash,
        lastValidBlockHeight: null,
        nonceAccount: precheck.nonceAccount,
        cancellationOf: null,
      }, false);
    },

    /**
     * Consumes the nonce of a pending or submitted EVM record with a zero-value self-transfer at a
     * higher fee. The cancellation has its own record; the monitor marks the original `CANCELLED`
     * when the cancellation wins.
     */
    async cancel(caller: Caller, walletId: string, transactionId: string, body: unknown): Promise<BroadcastResult> {
      const { wallet, shares } = await deps.loadWalletWithShares(caller, walletId);
      const input = parseInput(cancelBody, body ?? {});
      const original = uuidSchema.safeParse(transactionId).success ? await store.findInWallet(caller.projectId, wallet.id, transactionId) : null;
      if (!original) throw notFound('Transaction');
      assertSignable(wallet);
      if (original.walletType !== 'EVM' || original.nonce === null) throw conflict('Only EVM transactions can be cancelled (Solana transactions expire with their blockhash)');
      if (original.status !== 'pending' && original.status !== 'submitted') {
        throw conflict(`The transaction is ${original.status}; only a pending or submitted transaction can be cancelled`);
      }
      const target = evmTarget(Number(original.chainId));
      const suggestion = await beforeRecord(target.gateway.getFeeSuggestion());
      // A replacement must outbid the original by at least 10%; twice the current ceiling does.
      // The 1 gwei added to the priority fee is added to the ceiling too, so it never exceeds it on a low-fee chain.
      const maxFeePerGas = input.maxFeePerGas ?? (suggestion.maxFeePerGas * 2n + 1_000_000_000n).toString();
      const maxPriorityFeePerGas = input.maxPriorityFeePerGas ?? (suggestion.maxPriorityFeePerGas * 2n + 1_000_000_000n).toString();
      if (BigInt(maxPriorityFeePerGas) > BigInt(maxFeePerGas)) throw invalidRequest('Invalid request: maxPriorityFeePerGas: must not exceed maxFeePerGas');
      const signed = (
        await sign(
          caller,
          wallet,
          shares,
          {
            transaction: {
              to: wallet.address,
              value: '0',
              chainId: Number(original.chainId),
              type: 2,
              nonce: original.nonce,
              gasLimit: NATIVE_TRANSFER_GAS.toString(),
              maxFeePerGas,
              maxPriorityFeePerGas,
            },
          },
          'wallet.sign.cancel',
        )
      ).signedTransaction as string;
      return broadcast(caller, wallet, 'transfer', target, signed, keccak256(signed as Hex), {
        to: wallet.address,
        value: '0',
        tokenAddress: null,
        nonce: original.nonce,
        recentBlockhash: null,
        lastValidBlockHeight: null,
        nonceAccount: null,
        cancellationOf: original.id,
      }, false);
    },

    async list(caller: Caller, walletId: string, query: unknown): Promise<Page<TransactionSummaryView>> {
      const wallet = await deps.loadWallet(caller, walletId);
      const input = parseInput(listTransactionsQuery, query);
      return keysetPage(
        input,
        (after, limit) => store.list({ projectId: caller.projectId, walletId: wallet.id, status: input.status, intentKind: input.intentKind, after, limit }),
        toTransactionSummary,
      );
    },

    async get(caller: Caller, walletId: string, transactionId: string): Promise<TransactionDetailView> {
      const wallet = await deps.loadWallet(caller, walletId);
      const record = uuidSchema.safeParse(transactionId).success ? await store.findInWallet(caller.projectId, wallet.id, transactionId) : null;
      if (!record) throw notFound('Transaction');
      return toTransactionDetail(record);
    },
  };
}

/** The wallet's signature in a signed Solana wire transaction: the transaction id (base58). */
function solanaSignature(wireBase64: string, address: string): string {
  const decoded = getTransactionDecoder().decode(Buffer.from(wireBase64, 'base64'));
  const signature = decoded.signatures[address as Address];
  if (!signature) throw new Error('signed transaction lacks the wallet signature');
  return getBase58Decoder().decode(signature);
}

export type TransactionService = ReturnType<typeof createTransactionService>;
