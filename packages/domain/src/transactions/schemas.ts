import { isAddress as isSolanaAddress } from '@solana/kit';
import { isAddress as isEvmAddress } from 'viem';
import { z } from 'zod';
import { BASE_UNITS, baseUnitsMessage, quoteInput } from '../shared/amount-messages.ts';
import { identifierString } from '../shared/zod.ts';

const BASE_UNITS_PATTERN = /^(0|[1-9]\d{0,77})$/;

/** An integer string in `units` (`value`: base units; the fee fields: gas or wei per gas); every refusal names the unit. */
function integerIn(units: string, positive = false) {
  const error = (issue: { input?: unknown }) => baseUnitsMessage(units, positive, issue.input);
  return z.string({ error }).regex(BASE_UNITS_PATTERN, { error });
}

const chainIdSchema = z
  .union([z.number().int().positive().max(2 ** 53 - 1), z.string().regex(/^[1-9]\d{0,15}$/, 'a positive integer')])
  .transform((value) => Number(value));

/** The transfer body whose `value` messages name `units` and, for a transfer (not an estimate), ask for a positive one. */
function transferBodyIn(units: string, positive: boolean) {
  return z.strictObject({
    to: identifierString().min(1).max(128),
    value: integerIn(units, positive).describe(`An integer in ${units}, as a decimal string`),
    chainId: chainIdSchema.optional(),
    kind: z.enum(['NATIVE', 'ERC20', 'SPL']).optional(),
    tokenAddress: identifierString().min(1).max(128).optional(),
    nonce: z.number().int().min(0).max(2 ** 32 - 1).optional().describe('EVM only: use this nonce instead of the next free one'),
    gasLimit: integerIn('gas units').optional().describe('EVM only; default: estimated plus 20%'),
    maxFeePerGas: integerIn('wei per gas').optional().describe('EVM type 2 only'),
    maxPriorityFeePerGas: integerIn('wei per gas').optional().describe('EVM type 2 only'),
    gasPrice: integerIn('wei per gas').optional().describe('EVM type 0 only'),
    type: z.literal([0, 2]).optional().describe('EVM transaction type: 2 (EIP-1559, default) or 0 (legacy)'),
    network: z.enum(['SOLANA', 'SOLANA_DEVNET']).optional().describe('Solana only; default SOLANA'),
    autoRetry: z
      .strictObject({
        enabled: z.boolean().describe('false: the service never replaces this transfer'),
        maxFeePerGas: z
          .string()
          .regex(/^[1-9]\d{0,77}$/, 'expected a positive integer in wei per gas, as a decimal string')
          .optional()
          .describe('EVM only: the maxFeePerGas no replacement goes above; default the project\'s default ceiling (console), else 10 times the first attempt\'s maxFeePerGas'),
      })
      .optional()
      .describe(
        'Managed automatic retry (docs/transfers.md). EVM: fee replacements; default: the project\'s default (console), else on; never when the body pins nonce, gasPrice, maxFeePerGas or maxPriorityFeePerGas (enabled: true with a pin is refused). Solana: an expired transfer is rebuilt on a fresh blockhash; default on',
      ),
  });
}

/**
 * Body of `transfer` and `estimate-fee` (public v1 shape). `value` is in base units (wei, lamports,
 * token base units). EVM: `chainId` required; `kind` inferred from `tokenAddress`; fee overrides
 * optional. Solana: `network` (default `SOLANA`); `chainId` is ignored as the public API does.
 */
export const transferBody = transferBodyIn(BASE_UNITS.ANY, false).meta({ id: 'TransferRequest' });

export type TransferInput = z.output<typeof transferBody>;

export type TransferWalletType = 'EVM' | 'SOLANA';
/** `transfer` signs and sends (value must be > 0); `estimate` only prices the same body. */
export type TransferPurpose = 'transfer' | 'estimate';

const EVM_ONLY = ['nonce', 'gasLimit', 'maxFeePerGas', 'maxPriorityFeePerGas', 'gasPrice', 'type'] as const;
/** Fields that pin what a fee replacement would change: a transfer with one is never retried. */
export const RETRY_PINS = ['nonce', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas'] as const;
const U64_MAX = 2n ** 64n - 1n;
const isDecimal = (value: string | undefined): value is string => value !== undefined && /^\d+$/.test(value);

/** The asset kind of a transfer body: `kind`, else inferred from `tokenAddress`. */
export function transferKind(type: TransferWalletType, input: Pick<TransferInput, 'kind' | 'tokenAddress'>): 'NATIVE' | 'ERC20' | 'SPL' {
  return input.kind ?? (input.tokenAddress === undefined ? 'NATIVE' : type === 'EVM' ? 'ERC20' : 'SPL');
}

type Issue = (path: keyof TransferInput | ['autoRetry', 'maxFeePerGas'], message: string) => void;

function evmTransferRules(input: TransferInput, issue: Issue) {
  if (input.chainId === undefined) issue('chainId', 'required for EVM wallets');
  if (input.network !== undefined) issue('network', 'not allowed for EVM wallets');
  if (!isEvmAddress(input.to, { strict: false })) issue('to', 'not an EVM address');
  const kind = transferKind('EVM', input);
  if (kind === 'SPL') issue('kind', 'SPL is for Solana wallets; use NATIVE or ERC20');
  if (kind === 'ERC20' && input.tokenAddress === undefined) issue('tokenAddress', 'required for ERC20 transfers');
  if (kind === 'NATIVE' && input.tokenAddress !== undefined) issue('tokenAddress', 'not allowed for NATIVE transfers');
  else if (input.tokenAddress !== undefined && !isEvmAddress(input.tokenAddress, { strict: false })) issue('tokenAddress', 'not an EVM address');
  if (input.autoRetry?.enabled === true) {
    for (const field of RETRY_PINS) if (input[field] !== undefined) issue(field, 'pins what a managed retry would change: leave it out, or set autoRetry.enabled to false');
    if (input.type === 0) issue('type', 'managed retry replaces type 2 transactions only: leave type out, or set autoRetry.enabled to false');
  }
  if ((input.type ?? 2) === 2) {
    if (input.gasPrice !== undefined) issue('gasPrice', 'only for type 0; use maxFeePerGas and maxPriorityFeePerGas');
    if (isDecimal(input.maxFeePerGas) && isDecimal(input.maxPriorityFeePerGas) && BigInt(input.maxPriorityFeePerGas) > BigInt(input.maxFeePerGas)) {
      issue('maxPriorityFeePerGas', 'must not exceed maxFeePerGas');
    }
  } else {
    for (const field of ['maxFeePerGas', 'maxPriorityFeePerGas'] as const) {
      if (input[field] !== undefined) issue(field, 'only for type 2; use gasPrice');
    }
  }
}

function solanaTransferRules(input: TransferInput, issue: Issue) {
  for (const field of EVM_ONLY) if (input[field] !== undefined) issue(field, 'only for EVM wallets');
  if (input.autoRetry?.maxFeePerGas !== undefined) issue(['autoRetry', 'maxFeePerGas'], 'only for EVM wallets: a Solana transfer is rebuilt on a fresh blockhash, not repriced');
  if (!isSolanaAddress(input.to)) issue('to', 'not a Solana address');
  const kind = transferKind('SOLANA', input);
  if (kind === 'ERC20') issue('kind', 'ERC20 is for EVM wallets; use NATIVE or SPL');
  if (kind === 'SPL' && input.tokenAddress === undefined) issue('tokenAddress', 'required for SPL transfers (the mint)');
  if (kind === 'NATIVE' && input.tokenAddress !== undefined) issue('tokenAddress', 'not allowed for NATIVE transfers');
  else if (input.tokenAddress !== undefined && !isSolanaAddress(input.tokenAddress)) issue('tokenAddress', 'not a Solana address');
  if (isDecimal(input.value) && BigInt(input.value) > U64_MAX) issue('value', `expected at most ${U64_MAX} (a u64) in ${BASE_UNITS.SOLANA}, got ${quoteInput(input.value)}`);
}

function transferRules(type: TransferWalletType, purpose: TransferPurpose) {
  return transferBodyIn(BASE_UNITS[type], purpose === 'transfer').superRefine((input, ctx) => {
    const issue: Issue = (path, message) => ctx.addIssue({ code: 'custom', path: Array.isArray(path) ? path : [path], message });
    if (type === 'EVM') evmTransferRules(input, issue);
    else solanaTransferRules(input, issue);
    if (purpose === 'transfer' && isDecimal(input.value) && BigInt(input.value) === 0n) issue('value', baseUnitsMessage(BASE_UNITS[type], true, input.value));
  });
}

const transferBodies = {
  EVM: { transfer: transferRules('EVM', 'transfer'), estimate: transferRules('EVM', 'estimate') },
  SOLANA: { transfer: transferRules('SOLANA', 'transfer'), estimate: transferRules('SOLANA', 'estimate') },
};

/**
 * `transferBody` with the rules of one wallet type (addresses, kind and token, fee fields of the
 * transaction type, u64 amounts; `value > 0` for transfers): each broken rule is an issue on its
 * field, so the 400 names it in `details`. The public schema (OpenAPI) stays `transferBody`.
 */
export function transferBodyFor(type: TransferWalletType, purpose: TransferPurpose) {
  return transferBodies[type][purpose];
}

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
export const intentKinds = ['transfer', 'sign_transaction', 'yield', 'calls'] as const;

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

const autoRetryAttempt = z
  .object({
    hash: z.string().nullable().describe("The attempt's transaction (a bundler's hand-over has none until a bundle includes it)"),
    userOperationHash: z.string().optional().describe('Sponsored records: the user operation it carried (a replacement operation has its own)'),
    maxFeePerGas: z.string().optional(),
    maxPriorityFeePerGas: z.string().optional(),
    recentBlockhash: z.string().optional().describe('Solana: the blockhash the attempt was built on'),
    sentAt: z.string().describe('ISO 8601, the last time it was sent'),
    outcome: z.string().describe('unknown (no answer yet), pending (taken), refused, included (it won), lost (another attempt won); treat unknown values as non-terminal'),
  })
  .meta({ id: 'TransactionAttempt' });

const autoRetryView = z
  .object({
    enabled: z.boolean().describe('The service itself gets the payment on chain, retrying on its own'),
    maxFeePerGas: z
      .string()
      .nullable()
      .describe('The per-gas fee ceiling of retries, wei (null: none; a sponsored operation is bounded by the gas cap instead)'),
    attempts: z.array(autoRetryAttempt).describe('Every attempt, oldest first'),
    reason: z.string().optional().describe('Why the last attempt was made, or (transfers) why no replacement is made now: ceiling reached, policy refusal, attempts used up'),
  })
  .meta({
    id: 'TransactionAutoRetry',
    description:
      'How the service retries the submission. Sponsored records: it resubmits the stored signed operation, and replaces an operation stuck under the base fee with one of the same EntryPoint nonce and higher fees (only one can execute). EVM transfers: fee replacements with the same nonce, call and value. Solana transfers: the same transfer rebuilt on a fresh blockhash once every earlier attempt is proven expired. The first attempt is the record\'s own `hash`; `monitoring.winningHash` names the included attempt',
  });

export const transferResponse = z
  .object({
    signedTransaction: z.string(),
    txHash: z.string(),
    transactionId: z.uuid(),
    autoRetry: autoRetryView.optional().describe('Transfers under managed automatic retry: the switch, the ceiling and the first attempt (follow the single lookup for later ones)'),
  })
  .meta({ id: 'TransferResponse' });

/** One call of a `calls` record (POST /v1/wallets/{walletId}/calls). */
export const batchCallView = z
  .object({
    to: z.string().describe('The contract or account called'),
    value: z.string().describe('Wei sent with the call, decimal'),
    data: z.string().describe('Calldata, 0x-prefixed hex (`0x` when none)'),
    selector: z.string().nullable().describe('The 4-byte function selector, null for a call without one'),
  })
  .meta({ id: 'BatchCall' });

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
    executionMode: z
      .enum(['legacy', 'sponsored'])
      .describe('legacy: the wallet sent its own transaction; sponsored: an ERC-4337 user operation whose gas the service paid (docs/sponsorship.md)'),
    calls: z.array(batchCallView).optional().describe('`calls` records: the batch its one transaction executed atomically, in order'),
    serviceInitiated: z
      .enum(['nonce_gap_filler'])
      .optional()
      .describe('Present on a record the service broadcast itself: nonce_gap_filler, a zero-value self-transfer at a nonce no record could fill, so the transactions queued behind it could land'),
  })
  .meta({ id: 'TransactionSummary' });

export const transactionDetail = transactionSummary
  .extend({
    nonce: z.number().int().nullable().describe('EVM nonce'),
    cancellationOf: z.uuid().optional().describe('the record this cancellation consumes the nonce of'),
    stage: z
      .string()
      .nullable()
      .optional()
      .describe(
        'Sponsored records only: accepted, requires_action, signed, submitted, submission_unknown, included (also on the resolved record), delivery_unverified; treat unknown values as non-terminal (docs/sponsorship.md)',
      ),
    reviewId: z.string().nullable().optional().describe('Sponsored records only: the partner review the operation waits for (stage requires_action)'),
    userOperationHash: z.string().nullable().optional().describe('Sponsored records only: the ERC-4337 user operation hash (never the bundle transaction hash, which is `hash`)'),
    actualGasCost: z.string().nullable().optional().describe('Sponsored records only: the gas the sponsor paid, in wei as a decimal string'),
    autoRetry: autoRetryView.optional(),
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
    maxFeePerGas: integerIn('wei per gas').optional(),
    maxPriorityFeePerGas: integerIn('wei per gas').optional(),
  })
  .meta({ id: 'CancelTransactionRequest' });

/** `cancelBody` with its cross-field rule (the public schema stays `cancelBody`). */
export const cancelInput = cancelBody.superRefine((input, ctx) => {
  if (isDecimal(input.maxFeePerGas) && isDecimal(input.maxPriorityFeePerGas) && BigInt(input.maxPriorityFeePerGas) > BigInt(input.maxFeePerGas)) {
    ctx.addIssue({ code: 'custom', path: ['maxPriorityFeePerGas'], message: 'must not exceed maxFeePerGas' });
  }
});
