import {
  cancelBody,
  estimateFeeResponse,
  listTransactionsQuery,
  errorBodies,
  resumeBody,
  transactionDetail,
  transactionList,
  transferBody,
  transferResponse,
  withApprovalRequest,
  type TransactionService,
} from '@wallet/domain';
import { defineRoutes } from '../http/route.ts';
import { transactionsExamples } from './transactions-examples.ts';

const broadcastFailure = 'BROADCAST_FAILED after the record was created (400 refused by the node, 502 outcome unknown): the body carries transactionId, failureStage and failureCode, and the x-transaction-id header is set';

/** The 403 of every route that signs: an invalid key, a policy's denial, or an approval case that gates the request. */
export const signingRefusals = {
  description:
    "FORBIDDEN (invalid API key; also when the request needs approval and the wallet has no authorization scope binding), POLICY_DENIED: a policy refused the signature (deniedBy says why; nothing was signed, recorded or sent), POLICY_REVIEW_REQUIRED (reviewId, caseId, expiresAt): an approval case gates it, resend the identical body with the same Idempotency-Key once completed, or SIGNER_LIMIT_EXCEEDED: the signer process's own limits (its operator's, apart from the policies) refused it (limit says which; nothing was signed)",
  errors: [errorBodies.policyDenied, errorBodies.policyReviewRequired, errorBodies.signerLimitExceeded],
};

/** Every route that signs: the signer process that holds the keys did not answer. */
export const signerUnavailableResponse = {
  description: 'SIGNER_UNAVAILABLE: the signer process that holds the keys did not answer; nothing was signed, recorded or charged. Retry with backoff: it recovers by itself when the signer is back.',
  errors: [errorBodies.signerUnavailable],
};

/** What a route that builds, signs and broadcasts answers besides signingRefusals. */
export const broadcastResponses = {
  400: {
    description: `${broadcastFailure}; EXECUTION_FAILED (the node refused the simulation), INVALID_NONCE or BLOCKHASH_NOT_FOUND (Solana pre-checks, before any record)`,
    errors: [errorBodies.broadcastFailed, errorBodies.executionFailed, errorBodies.invalidNonce, errorBodies.blockhashNotFound],
  },
  409: {
    description:
      'CONFLICT (the Idempotency-Key of an approval case with another request, or a nonce taken meanwhile), WALLET_ALREADY_CLAIMED, WALLET_NOT_MIGRATED, WALLET_NOT_READY, YIELD_OPERATION_IN_PROGRESS or APPROVAL_CASE_IN_PROGRESS (another request holds the nonce)',
    errors: [errorBodies.walletAlreadyClaimed, errorBodies.walletNotMigrated, errorBodies.walletNotReady, errorBodies.yieldOperationInProgress, errorBodies.approvalCaseInProgress],
  },
  502: { description: broadcastFailure, errors: [errorBodies.broadcastFailed] },
  503: {
    description: `RPC_UNAVAILABLE before any record was created; ${signerUnavailableResponse.description}`,
    errors: [errorBodies.rpcUnavailable, errorBodies.signerUnavailable],
  },
};

export function transactionRoutes(transactions: TransactionService) {
  return defineRoutes([
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/transfer',
      operationId: 'transfer',
      examples: transactionsExamples.transfer,
      summary: 'Build, sign and broadcast a native or token transfer (EVM, Solana)',
      description: "Builds, signs and broadcasts a transfer of `value` (base units) to `to`: native or ERC-20 on EVM (`chainId` required), native or SPL on Solana (the recipient's token account is created when missing). A transaction record is written before the broadcast; follow `transactionId` (also in `x-transaction-id`) with the transaction lookup until it is `confirmed`, `reverted` or `failed`. Checked against the project's policies before anything is signed: a denial is 403 `POLICY_DENIED` (`deniedBy` says why) and signs nothing; a rule that requires approval is 403 `POLICY_REVIEW_REQUIRED`, after which the identical body resent with the same `Idempotency-Key` signs once the approval is complete. With an `Idempotency-Key`, a retry never signs or sends a second transaction.",
      tag: 'Transfers',
      body: transferBody,
      responses: {
        200: { description: 'Broadcast; follow it with GET .../transactions/{transactionId} (also in x-transaction-id)', schema: transferResponse },
        202: {
          description:
            'A sponsored transfer (executionMode sponsored: the service pays its gas, docs/sponsorship.md) was accepted: the body is its record, also on a replay with the same Idempotency-Key; follow it by transactionId (also in x-transaction-id). Policies decide asynchronously; a review pauses it at stage requires_action',
          schema: transactionDetail,
        },
        ...broadcastResponses,
        400: { ...broadcastResponses[400], description: `${broadcastResponses[400].description}; for a sponsored transfer EXECUTION_FAILED means the transfer would revert, and nothing was recorded or sponsored` },
        403: signingRefusals,
        409: {
          description: `${broadcastResponses[409].description}; SPONSORSHIP_PAUSED: sponsored transfers of this project and environment are paused (nothing recorded)`,
          errors: [...broadcastResponses[409].errors, errorBodies.sponsorshipPaused],
        },
        422: {
          description: 'A sponsored transfer refused before any record: SPONSORSHIP_GAS_CAP_EXCEEDED (its maximum cost at the current fees is above the per-operation cap) or SPONSORSHIP_BUDGET_EXCEEDED (it does not fit in the rest of today\'s budget)',
          errors: [errorBodies.sponsorshipGasCapExceeded, errorBodies.sponsorshipBudgetExceeded],
        },
      },
      handler: async ({ caller, params, body, req }) => {
        const request = withApprovalRequest(caller, req.method, `${req.baseUrl}${req.path}`, body);
        const result = await transactions.transfer(request.caller, params.walletId ?? '', request.body);
        return 'status' in result ? result : { status: 200, ...result };
      },
    },
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/estimate-fee',
      operationId: 'estimateFee',
      examples: transactionsExamples.estimateFee,
      summary: 'Preview the fee of a transfer without signing or broadcasting',
      description: "Takes a transfer body (`value` may be `0`) and answers what the transfer would cost, in the chain's standard units; nothing is signed or recorded. Solana estimates include the rent of a token account the transfer would create (with a `warning`); when gas estimation fails, a typical gas limit is used and `warning` says so.",
      tag: 'Transfers',
      body: transferBody,
      responses: {
        200: { description: 'The fee estimate', schema: estimateFeeResponse },
        400: { description: 'EXECUTION_FAILED: the node refused the simulation', errors: [errorBodies.executionFailed] },
        503: { description: "RPC_UNAVAILABLE: the chain's RPC could not be reached", errors: [errorBodies.rpcUnavailable] },
      },
      handler: async ({ caller, params, body }) => ({ status: 200, body: await transactions.estimateFee(caller, params.walletId ?? '', body) }),
    },
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/transactions',
      operationId: 'listTransactions',
      examples: transactionsExamples.listTransactions,
      summary: "A wallet's broadcast transaction records, newest first",
      description: "The wallet's transaction records (transfers, broadcasts, cancellations, yield steps; sign-only calls write none), newest first in the list envelope, filtered by `status` and `intentKind`. Records created while paging never shift later pages.",
      tag: 'Transaction history',
      query: listTransactionsQuery,
      responses: { 200: { description: 'A page of transaction summaries', schema: transactionList } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await transactions.list(caller, params.walletId ?? '', query) }),
    },
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/transactions/{transactionId}',
      operationId: 'getTransaction',
      examples: transactionsExamples.getTransaction,
      summary: 'One transaction record with its latest persisted outcome',
      description: "The record's summary plus `nonce` and `cancellationOf`, with the outcome the transaction monitor last stored (`pending`, `submitted`, `confirmed`, `reverted` or `failed`). Another project's record, a missing one and a malformed id are the same 404.",
      tag: 'Transaction history',
      responses: { 200: { description: 'The record', schema: transactionDetail } },
      handler: async ({ caller, params }) => ({
        status: 200,
        body: await transactions.get(caller, params.walletId ?? '', params.transactionId ?? ''),
      }),
    },
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/transactions/{transactionId}/resume',
      operationId: 'resumeTransaction',
      examples: transactionsExamples.resumeTransaction,
      summary: 'Resume a sponsored transfer paused for a review',
      description:
        'For a sponsored record at stage `requires_action`: once its review (`reviewId`) is approved, the same operation continues (202 with the record, stage `accepted`); policies, the gas cap and the budget are checked again asynchronously, and a later signature may need another review. A record with no pending review is answered unchanged (202). Only sponsored records can be resumed: any other id is 404.',
      tag: 'Transaction history',
      body: resumeBody,
      responses: {
        202: { description: 'The record (resumed, or unchanged when no review was pending)', schema: transactionDetail },
        409: { description: 'CONFLICT: the record waits for another review (its reviewId is in the body)', errors: [errorBodies.conflict] },
      },
      handler: async ({ caller, params, body }) => transactions.resume(caller, params.walletId ?? '', params.transactionId ?? '', body),
    },
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/transactions/{transactionId}/cancel',
      operationId: 'cancelTransaction',
      examples: transactionsExamples.cancelTransaction,
      summary: 'Consume the nonce of a pending EVM transaction with a zero-value self-transfer',
      description: "Broadcasts a zero-value self-transfer with the nonce of a `pending` or `submitted` EVM record, at twice the current fee ceiling (plus 1 gwei) unless the fees are given. The cancellation has its own record; when it wins, the original becomes `failed` with `failureCode` `CANCELLED`. A resolved record or a Solana record is 409 `CONFLICT`. Checked against the project's policies before anything is signed: a denial is 403 `POLICY_DENIED` (`deniedBy` says why) and signs nothing; a rule that requires approval is 403 `POLICY_REVIEW_REQUIRED`, after which the identical body resent with the same `Idempotency-Key` signs once the approval is complete.",
      tag: 'Transaction history',
      body: cancelBody,
      responses: {
        200: { description: 'The cancellation was broadcast; it has its own record', schema: transferResponse },
        ...broadcastResponses,
        403: signingRefusals,
        409: { ...broadcastResponses[409], description: `CONFLICT: the transaction is already resolved, or not an EVM transaction; ${broadcastResponses[409].description}` },
      },
      handler: async ({ caller, params, body }) => ({
        status: 200,
        ...(await transactions.cancel(caller, params.walletId ?? '', params.transactionId ?? '', body)),
      }),
    },
  ]);
}
