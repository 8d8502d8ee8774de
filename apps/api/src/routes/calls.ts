import { callsBody, callsErrorBodies, callsResponse, errorBodies, MAX_CALLS, transactionDetail, withApprovalRequest, type CallsService } from '@wallet/domain';
import { defineRoutes } from '../http/route.ts';
import { callsExamples } from './calls-examples.ts';
import { broadcastResponses, signingRefusals } from './transactions.ts';

/** POST /v1/wallets/{walletId}/calls: a batch of contract calls, atomic, in one transaction. */
export function callsRoutes(calls: CallsService) {
  return defineRoutes([
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/calls',
      operationId: 'sendCalls',
      examples: callsExamples.sendCalls,
      summary: 'Run a batch of contract calls atomically in one transaction (EVM)',
      description: `Runs 1 to ${MAX_CALLS} calls \`{to, value?, data?}\` in order, all or none, in ONE transaction from the EVM wallet to itself that calls \`executeBatch\` on its EIP-7702 delegation to Simple7702Account; the wallet pays the gas. A wallet not delegated yet carries its signed authorization (a type 4 transaction; its nonce is the one after the transaction's). Before anything is signed the batch is simulated as the wallet: a batch that would revert is 422 \`CALLS_SIMULATION_REVERTED\` with the failing call's index and decoded reason. Checked against the project's policies call by call (each a \`sign_transaction\` to its target, with its selector and decoded ERC-20 \`transfer\`/\`approve\` arguments): the batch is allowed only if every call is, and its spend (native total, each token transfer) is reserved once; a denial is 403 \`POLICY_DENIED\` and signs nothing. One transaction record (\`intentKind\` \`calls\`, holding the calls) is written before the broadcast; follow \`transactionId\` (also in \`x-transaction-id\`) until it is \`confirmed\`, \`reverted\` or \`failed\`. With an \`Idempotency-Key\`, a retry never signs or sends a second transaction.`,
      tag: 'Transfers',
      body: callsBody,
      responses: {
        200: { description: 'Broadcast; follow it with GET .../transactions/{transactionId} (also in x-transaction-id)', schema: callsResponse },
        202: {
          description:
            'A sponsored batch (`sponsored: true`: one user operation whose gas the paymaster pays, docs/sponsorship.md) was accepted: the body is its record (executionMode sponsored), also on a replay with the same Idempotency-Key; follow it by transactionId. Policies decide in the worker; a review pauses it at stage requires_action',
          schema: transactionDetail,
        },
        400: {
          description: `INVALID_REQUEST: a malformed body (no calls, more than ${MAX_CALLS}, a bad address, value or calldata, a chain not configured) or a wallet that is not EVM; ${broadcastResponses[400].description}`,
          errors: [...broadcastResponses[400].errors],
        },
        403: signingRefusals,
        404: { description: 'NOT_FOUND: no such wallet in this project' },
        409: {
          description: `${broadcastResponses[409].description}; CALLS_UNAVAILABLE: no delegate contract on this chain, or a sponsored batch where sponsorship is not enabled (project and environment, chain); SPONSORSHIP_PAUSED: sponsorship of this project and environment is paused (nothing recorded)`,
          errors: [...broadcastResponses[409].errors, callsErrorBodies.callsUnavailable, errorBodies.sponsorshipPaused],
        },
        422: {
          description:
            "CALLS_SIMULATION_REVERTED: the batch would revert (callIndex, reason, revertData say where and why); nothing was signed, recorded or sent. A sponsored batch refused before any record: SPONSORSHIP_GAS_CAP_EXCEEDED or SPONSORSHIP_BUDGET_EXCEEDED, as for sponsored transfers",
          errors: [callsErrorBodies.simulationReverted, errorBodies.sponsorshipGasCapExceeded, errorBodies.sponsorshipBudgetExceeded],
        },
        502: broadcastResponses[502],
        503: { ...broadcastResponses[503], errors: [errorBodies.rpcUnavailable, errorBodies.signerUnavailable] },
      },
      handler: async ({ caller, params, body, req }) => {
        const request = withApprovalRequest(caller, req.method, `${req.baseUrl}${req.path}`, body);
        const result = await calls.send(request.caller, params.walletId ?? '', request.body);
        return 'status' in result ? result : { status: 200, ...result };
      },
    },
  ]);
}
