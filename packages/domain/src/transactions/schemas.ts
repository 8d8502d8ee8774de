import { z } from 'zod';

const decimalString = (what: string) =>
  z.string().regex(/^(0|[1-9]\d{0,77})$/, `${what}: a non-negative integer as a decimal string`);

const chainIdSchema = z
  .union([z.number().int().positive().max(2 ** 53 - 1), z.string().regex(/^[1-9]\d{0,15}$/, 'a positive integer')])
  .transform((value) => Number(value));

/**
 * Body of `transfer` and `estimate-fee` (public v1 shape). `value` is in base units (wei, lamports,
 * token base units). EVM: `chainId` required; `kind` inferred from `tokenAddress`; fee overrides
 * optional. Solana: `network` (default `SOLANA`); `chainId` is ignored as the public API does.
 */
export const transferBody = z
  .strictObject({
    to: z.string().min(1).max(128),
    value: decimalString('value'),
    chainId: chainIdSchema.optional(),
    kind: z.enum(['NATIVE', 'ERC20', 'SPL']).optional(),
    tokenAddress: z.string().min(1).max(128).optional(),
    nonce: z.number().int().min(0).max(2 ** 32 - 1).optional().describe('EVM only: use this nonce instead of the next free one'),
    gasLimit: decimalString('gasLimit').optional().describe('EVM only; default: estimated plus 20%'),
    maxFeePerGas: decimalString('maxFeePerGas').optional().describe('EVM type 2 only'),
    maxPriorityFeePerGas: decimalString('maxPriorityFeePerGas').optional().describe('EVM type 2 only'),
    gasPrice: decimalString('gasPrice').optional().describe('EVM type 0 only'),
    type: z.literal([0, 2]).optional().describe('EVM transaction type: 2 (EIP-1559, default) or 0 (legacy)'),
    network: z.enum(['SOLANA', 'SOLANA_DEVNET']).optional().describe('Solana only; default SOLANA'),
  })
  .meta({ id: 'TransferRequest' });

export type TransferInput = z.output<typeof transferBody>;

export const transferResponse = z
  .object({ signedTransaction: z.string(), txHash: z.string(), transactionId: z.uuid() })
  .meta({ id: 'TransferResponse' });

export const estimateFeeResponse = z
  .object({
    estimatedFee: z.string().describe('in the native currency, standard units'),
    transferAmount: z.string().describe('in the transferred asset, standard units'),
    currency: z.string(),
    gasLimit: z.string().optional(),
    maxFeePerGas: z.string().optional(),
    maxPriorityFeePerGas: z.string().optional(),
    gasPrice: z.string().optional(),
    transactionType: z.number().int().optional(),
    warning: z.string().optional(),
  })
  .meta({ id: 'FeeEstimate' });

export const transactionStatuses = ['pending', 'submitted', 'confirmed', 'reverted', 'failed'] as const;
export const intentKinds = ['transfer', 'sign_transaction', 'yield'] as const;

export const listTransactionsQuery = z
  .strictObject({
    status: z.enum(transactionStatuses).optional(),
    intentKind: z.enum(intentKinds).optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .meta({ id: 'ListTransactionsQuery' });

const monitoringView = z
  .object({
    chainOutcome: z.string().nullable(),
    winningHash: z.string().nullable(),
    winningStatus: z.string().nullable(),
    state: z.string().optional(),
  })
  .meta({ id: 'TransactionMonitoring' });

export const transactionSummary = z
  .object({
    transactionId: z.uuid(),
    walletId: z.uuid(),
    walletType: z.enum(['EVM', 'SOLANA']),
    intentKind: z.enum(intentKinds),
    status: z.string().describe('pending | submitted | confirmed | reverted | failed; treat unknown values as non-terminal'),
    createdAt: z.string(),
    chainId: z.string().nullable(),
    network: z.string().nullable(),
    to: z.string().optional(),
    value: z.string().optional(),
    tokenAddress: z.string().optional(),
    hash: z.string().nullable(),
    blockNumber: z.string().nullable(),
    blockHash: z.string().nullable(),
    failureStage: z.string().nullable(),
    failureCode: z.string().nullable(),
    failureMessage: z.string().nullable(),
    submittedAt: z.string().nullable(),
    resolvedAt: z.string().nullable(),
    monitoring: monitoringView.optional(),
  })
  .meta({ id: 'TransactionSummary' });

export const transactionDetail = transactionSummary
  .extend({
    nonce: z.number().int().nullable().describe('EVM nonce'),
    cancellationOf: z.uuid().optional().describe('the record this cancellation consumes the nonce of'),
  })
  .meta({ id: 'Transaction' });

export type TransactionSummaryView = z.output<typeof transactionSummary>;
export type TransactionDetailView = z.output<typeof transactionDetail>;

export const transactionList = z
  .object({
    data: z.array(transactionSummary),
    pagination: z.object({ cursor: z.string().nullable(), hasMore: z.boolean(), limit: z.number().int() }),
  })
  .meta({ id: 'TransactionList' });

export const cancelBody = z
  .strictObject({
    maxFeePerGas: decimalString('maxFeePerGas').optional(),
    maxPriorityFeePerGas: decimalString('maxPriorityFeePerGas').optional(),
  })
  .meta({ id: 'CancelTransactionRequest' });
