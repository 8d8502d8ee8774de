import {
  cancelBody,
  estimateFeeResponse,
  listTransactionsQuery,
  policyDeniedResponse,
  transactionDetail,
  transactionList,
  transferBody,
  transferResponse,
  withApprovalRequest,
  type TransactionService,
} from '@wallet/domain';
import { defineRoutes } from '../http/route.ts';

const broadcastFailure = {
  description:
    'BROADCAST_FAILED after the record was created (400 refused by the node, 502 outcome unknown): the body carries transactionId, failureStage and failureCode, and the x-transaction-id header is set',
};

export function transactionRoutes(transactions: TransactionService) {
  return defineRoutes([
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/transfer',
      operationId: 'transfer',
      summary: 'Build, sign and broadcast a native or token transfer (EVM, Solana)',
      tag: 'Transfers',
      body: transferBody,
      responses: {
        200: { description: 'Broadcast; follow it with GET .../transactions/{transactionId} (also in x-transaction-id)', schema: transferResponse },
        400: broadcastFailure,
        403: {
          ...policyDeniedResponse,
          description: `${policyDeniedResponse.description}; POLICY_REVIEW_REQUIRED (reviewId, caseId, expiresAt): an approval case gates it, resend the identical body with the same Idempotency-Key once completed; FORBIDDEN also when it needs approval and the wallet has no authorization scope binding`,
        },
        409: { description: 'CONFLICT: the Idempotency-Key of an approval case with another request' },
        502: broadcastFailure,
        503: { description: 'RPC_UNAVAILABLE before any record was created' },
      },
      handler: async ({ caller, params, body, req }) => {
        const request = withApprovalRequest(caller, req.method, `${req.baseUrl}${req.path}`, body);
        return { status: 200, ...(await transactions.transfer(request.caller, params.walletId ?? '', request.body)) };
      },
    },
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/estimate-fee',
      operationId: 'estimateFee',
      summary: 'Preview the fee of a transfer without signing or broadcasting',
      tag: 'Transfers',
      body: transferBody,
      responses: { 200: { description: 'The fee estimate', schema: estimateFeeResponse } },
      handler: async ({ caller, params, body }) => ({ status: 200, body: await transactions.estimateFee(caller, params.walletId ?? '', body) }),
    },
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/transactions',
      operationId: 'listTransactions',
      summary: "A wallet's broadcast transaction records, newest first",
      tag: 'Transaction history',
      query: listTransactionsQuery,
      responses: { 200: { description: 'A page of transaction summaries', schema: transactionList } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await transactions.list(caller, params.walletId ?? '', query) }),
    },
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/transactions/{transactionId}',
      operationId: 'getTransaction',
      summary: 'One transaction record with its latest persisted outcome',
      tag: 'Transaction history',
      responses: { 200: { description: 'The record', schema: transactionDetail } },
      handler: async ({ caller, params }) => ({
        status: 200,
        body: await transactions.get(caller, params.walletId ?? '', params.transactionId ?? ''),
      }),
    },
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/transactions/{transactionId}/cancel',
      operationId: 'cancelTransaction',
      summary: 'Consume the nonce of a pending EVM transaction with a zero-value self-transfer',
      tag: 'Transaction history',
      body: cancelBody,
      responses: {
        200: { description: 'The cancellation was broadcast; it has its own record', schema: transferResponse },
        409: { description: 'CONFLICT: the transaction is already resolved, or not an EVM transaction' },
        400: broadcastFailure,
        403: policyDeniedResponse,
        502: broadcastFailure,
      },
      handler: async ({ caller, params, body }) => ({
        status: 200,
        ...(await transactions.cancel(caller, params.walletId ?? '', params.transactionId ?? '', body)),
      }),
    },
  ]);
}
