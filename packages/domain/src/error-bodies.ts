import { z } from 'zod';

/**
 * The bodies `ApiError.toBody()` answers, one schema per error code, for the OpenAPI document.
 * An operation's error status lists the codes it can carry; several codes under one status become
 * a `oneOf` discriminated by `code`. The API tests check every answer against these schemas.
 */

const fieldIssue = z.object({ path: z.string(), message: z.string() });

/** `{ code, message, ...extra }` filed under components/schemas/`id`. */
function errorBody<Code extends string, Extra extends z.ZodRawShape>(id: string, code: Code, extra: Extra) {
  return z.object({ code: z.literal(code), message: z.string(), ...extra }).meta({ id });
}

export const errorBodies = {
  invalidRequest: errorBody('InvalidRequest', 'INVALID_REQUEST', {
    details: z.array(fieldIssue).optional().describe('Every field failing its schema (path dotted), at most 20'),
  }),
  unauthorized: errorBody('Unauthorized', 'UNAUTHORIZED', {}),
  forbidden: errorBody('Forbidden', 'FORBIDDEN', {}),
  notFound: errorBody('NotFound', 'NOT_FOUND', {}),
  conflict: errorBody('Conflict', 'CONFLICT', {
    caseId: z.string().optional().describe('The approval case the Idempotency-Key belongs to'),
    reviewId: z.string().optional().describe('Resume: the review the sponsored transfer waits for'),
    status: z.string().optional().describe('The current status of the object that cannot change'),
    currentRevision: z.number().int().optional().describe('The revision to send as expectedRevision'),
    details: z.array(fieldIssue).optional().describe('The fields that differ from the request the Idempotency-Key was first used for'),
  }),
  payloadTooLarge: errorBody('PayloadTooLarge', 'PAYLOAD_TOO_LARGE', {}),
  requestHeadersTooLarge: errorBody('RequestHeadersTooLarge', 'REQUEST_HEADERS_TOO_LARGE', {}),
  rateLimited: errorBody('RateLimited', 'RATE_LIMITED', { retryAfter: z.number().int().describe('Seconds until the minute window resets') }),
  internalError: errorBody('InternalError', 'INTERNAL_ERROR', {}),
  signerUnavailable: errorBody('SignerUnavailable', 'SIGNER_UNAVAILABLE', {}),
  signerLimitExceeded: errorBody('SignerLimitExceeded', 'SIGNER_LIMIT_EXCEEDED', {
    limit: z.string().describe("The signer's limit that refused: perWalletPerMinute (signatures per wallet per minute) or nativeValueCap (native value per transaction)"),
  }),
  policyDenied: errorBody('PolicyDenied', 'POLICY_DENIED', {
    reason: z.string().describe("The first entry's reason: rule-matched, spend-limit-exceeded, condition-undecidable, raw-signature-not-allowed, review-rejected, review-expired, review-invalidated, review-cancelled"),
    caseId: z.string().optional().describe('The approval case that ended without approval'),
    deniedBy: z
      .array(z.object({ reason: z.string(), policyId: z.string().optional(), policyVersion: z.string().optional(), ruleId: z.string().optional(), caseId: z.string().optional() }))
      .describe('Every deciding rule'),
  }),
  policyReviewRequired: errorBody('PolicyReviewRequired', 'POLICY_REVIEW_REQUIRED', {
    reviewId: z.string(),
    caseId: z.string(),
    expiresAt: z.string().describe('ISO 8601; the case expires then unless completed'),
  }),
  walletAlreadyClaimed: errorBody('WalletAlreadyClaimed', 'WALLET_ALREADY_CLAIMED', {}),
  walletNotMigrated: errorBody('WalletNotMigrated', 'WALLET_NOT_MIGRATED', {}),
  walletNotReady: errorBody('WalletNotReady', 'WALLET_NOT_READY', {}),
  walletAlreadyMigrated: errorBody('WalletAlreadyMigrated', 'WALLET_ALREADY_MIGRATED', {}),
  walletAlreadyExists: errorBody('WalletAlreadyExists', 'WALLET_ALREADY_EXISTS', { walletId: z.string() }),
  initiatorCannotReview: errorBody('InitiatorCannotReview', 'INITIATOR_CANNOT_REVIEW', {}),
  permissionsExtensionUnavailable: errorBody('PermissionsV2ExtensionUnavailable', 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE', {}),
  approvalCasesAffected: errorBody('ApprovalCasesAffected', 'APPROVAL_CASES_AFFECTED', { affectedCaseIds: z.array(z.string()) }),
  approvalCaseInProgress: errorBody('ApprovalCaseInProgress', 'APPROVAL_CASE_IN_PROGRESS', { caseId: z.string(), nonce: z.number().int() }),
  yieldOperationInProgress: errorBody('YieldOperationInProgress', 'YIELD_OPERATION_IN_PROGRESS', {}),
  yieldDisabled: errorBody('YieldDisabled', 'YIELD_DISABLED', {}),
  yieldPositionReadFailed: errorBody('YieldPositionReadFailed', 'YIELD_POSITION_READ_FAILED', {}),
  broadcastFailed: errorBody('BroadcastFailed', 'BROADCAST_FAILED', {
    transactionId: z.string().describe('The record of the transaction; also in the x-transaction-id header'),
    failureStage: z.literal('broadcast'),
    failureCode: z.string().describe('RPC_UNAVAILABLE (502: outcome unknown) or the node\'s refusal'),
  }),
  rpcUnavailable: errorBody('RpcUnavailable', 'RPC_UNAVAILABLE', {}),
  executionFailed: errorBody('ExecutionFailed', 'EXECUTION_FAILED', {}),
  invalidNonce: errorBody('InvalidNonce', 'INVALID_NONCE', {}),
  blockhashNotFound: errorBody('BlockhashNotFound', 'BLOCKHASH_NOT_FOUND', {}),
  sponsorshipPaused: errorBody('SponsorshipPaused', 'SPONSORSHIP_PAUSED', {}),
  sponsorshipGasCapExceeded: errorBody('SponsorshipGasCapExceeded', 'SPONSORSHIP_GAS_CAP_EXCEEDED', {
    gasCapWei: z.string().describe('The per-operation cap, wei'),
    maxCostWei: z.string().describe('The most this operation could cost at the current fees (every gas limit × maxFeePerGas), wei'),
  }),
  sponsorshipBudgetExceeded: errorBody('SponsorshipBudgetExceeded', 'SPONSORSHIP_BUDGET_EXCEEDED', {
    requestedWei: z.string().describe("The operation's maximum cost, wei"),
    usedTodayWei: z.string().describe("What today's (UTC) accepted operations hold or spent, wei"),
    dailyBudgetWei: z.string(),
    day: z.string().describe('The UTC day, YYYY-MM-DD'),
  }),
};

export type ErrorBody = (typeof errorBodies)[keyof typeof errorBodies] | z.ZodObject;
