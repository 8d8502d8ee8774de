import { z } from 'zod';
import { environments, plans } from '../api-keys/plans.ts';
import { intentKinds, transactionStatuses } from '../transactions/schemas.ts';
import { walletStatuses, walletTypes } from '../wallets/schemas.ts';
import { webhookConfigInput } from '../webhooks/schemas.ts';

/**
 * Inputs of the console's use cases (tRPC procedures and the console's forms parse with these).
 * Ids are plain strings here: a malformed id is answered like a missing one (404), never 400.
 */
const id = z.string().trim().min(1).max(100);
const limit = z.coerce.number().int().min(1).max(100).default(50);
const cursor = z.string().min(1).max(200).optional();
/** Sent by tRPC infinite queries next to the cursor; lists only page forward, so it is accepted and ignored. */
export const direction = z.enum(['forward', 'backward']).optional();

export const projectIdInput = z.strictObject({ projectId: id });
export const apiKeyIdInput = z.strictObject({ apiKeyId: id });
export const walletIdInput = z.strictObject({ walletId: id });
export const transactionIdInput = z.strictObject({ transactionId: id });

export const createProjectInput = z.strictObject({ name: z.string().trim().min(1).max(100) });

const rateLimitPerMinute = z.number().int().min(0).max(1_000_000);
const ipAllowlist = z.array(z.string().trim().max(64)).max(100);

export const createProjectApiKeyInput = z.strictObject({
  projectId: id,
  environment: z.enum(environments),
  plan: z.enum(plans),
  /** Scale plan only; 0 means unlimited. */
  rateLimitPerMinute: rateLimitPerMinute.optional(),
  ipAllowlist: ipAllowlist.optional(),
});

/** Changes a key's limits; `rateLimitPerMinute: null` returns to the plan's default. */
export const updateApiKeyInput = z.strictObject({
  apiKeyId: id,
  plan: z.enum(plans).optional(),
  rateLimitPerMinute: rateLimitPerMinute.nullable().optional(),
  ipAllowlist: ipAllowlist.optional(),
});

/** Wallets across the partner's projects (GraphQL), or of one project when `projectId` is given. */
export const walletSearchInput = z.strictObject({
  projectId: id.optional(),
  type: z.enum(walletTypes).optional(),
  status: z.enum(walletStatuses).optional(),
  claimed: z.boolean().optional(),
  /** An address or a user identifier (exact). */
  search: z.string().trim().min(1).max(256).optional(),
  address: z.string().trim().min(1).max(128).optional(),
  userIdentifier: z.string().trim().min(1).max(256).optional(),
  cursor,
  direction,
  limit,
});

/** The console's wallet list: one project. */
export const walletListInput = walletSearchInput.omit({ address: true, userIdentifier: true }).extend({ projectId: id });

/** A day (`2026-11-27`, UTC) or an instant with its offset. */
const dayOrInstant = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

export const transactionSearchInput = z.strictObject({
  projectId: id.optional(),
  walletId: id.optional(),
  status: z.enum(transactionStatuses).optional(),
  intentKind: z.enum(intentKinds).optional(),
  hash: z.string().trim().min(1).max(200).optional(),
  /** The start of the wallet's user identifier, case-insensitively. */
  user: z.string().trim().min(1).max(256).optional(),
  /** EVM chain id (decimal) or Solana network, as GET /v1/chains names them. */
  chain: z.string().trim().min(1).max(64).optional(),
  /** `native`, `usdc` (the configured USDC of every chain), or a token address. */
  token: z.string().trim().min(1).max(128).optional(),
  /** Created at or after (a day: from its start, UTC). */
  from: dayOrInstant.optional(),
  /** Created at or before (a day: to its end, UTC). */
  to: dayOrInstant.optional(),
  cursor,
  direction,
  limit,
});

export const transactionListInput = transactionSearchInput.omit({ hash: true }).extend({ projectId: id });

export const yieldOperationStatuses = ['pending', 'submitted', 'confirmed', 'failed', 'requires_action', 'cancelled'] as const;
export const yieldOperationIdInput = z.strictObject({ operationId: id });

/** Yield operations across the partner's projects (GraphQL), or of one project or wallet. */
export const yieldOperationSearchInput = z.strictObject({
  projectId: id.optional(),
  walletId: id.optional(),
  status: z.enum(yieldOperationStatuses).optional(),
  cursor,
  direction,
  limit,
});

/** The console's project-wide list. */
export const yieldOperationListInput = yieldOperationSearchInput.extend({ projectId: id });

export const webhookSetInput = webhookConfigInput.extend({ apiKeyId: id });

export const webhookDeliveriesInput = z.strictObject({ apiKeyId: id, cursor, direction, limit });

export const webhookResendInput = z
  .strictObject({
    apiKeyId: id,
    eventId: z.string().trim().min(1).max(100).optional(),
    txHash: z.string().trim().min(1).max(200).optional(),
  })
  .refine((v) => (v.eventId === undefined) !== (v.txHash === undefined), { message: 'give eventId or txHash (one of them)' });

export const broadcastsPerDayInput = z.strictObject({ projectId: id, days: z.number().int().min(1).max(90).default(14) });

export type WalletSearchInput = z.input<typeof walletSearchInput>;
export type TransactionSearchInput = z.input<typeof transactionSearchInput>;
