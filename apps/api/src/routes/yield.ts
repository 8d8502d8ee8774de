import { ApiError, errorBodies, yieldMarketListSchema, yieldOperationSchema, type YieldService } from '@wallet/domain';
import { z } from 'zod';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { yieldExamples } from './yield-examples.ts';

const yieldBody = z
  .strictObject({
    marketId: z.string().optional().meta({ description: 'A market id of GET .../yield/markets; determines chain and asset' }),
    chainId: z.union([z.number().int(), z.string()]).optional().meta({ description: '1, 8453, 11155111 or 84532 (integer or its string form); alone it selects the pool-provider market of that chain' }),
    amount: z.string().meta({ description: 'Whole USDC as a decimal string ("1.5" is 1.5 USDC; not base units), at most six decimals and 85 characters, greater than zero; withdrawals also take `all`' }),
  })
  .meta({ id: 'YieldRequest' });

const operationResponses = {
  200: { description: 'The existing operation with this Idempotency-Key, terminal (`confirmed`, `failed`, `cancelled`) or paused (`requires_action`)', schema: yieldOperationSchema },
  202: { description: 'Accepted or still processing (also a paused operation retried by this request); `Location` is the operation to poll', schema: yieldOperationSchema },
  400: { description: 'INVALID_REQUEST: bad or missing Idempotency-Key, body field, unknown market, mismatched chainId, extra field, or a non-EVM wallet; nothing was created' },
  403: { description: 'WALLET_ALREADY_CLAIMED or WALLET_NOT_MIGRATED: yield needs an unclaimed API-created wallet', errors: [errorBodies.walletAlreadyClaimed, errorBodies.walletNotMigrated] },
  404: { description: 'NOT_FOUND: no such wallet for this partner' },
  409: {
    description: 'CONFLICT (the key was used for another request), YIELD_DISABLED, YIELD_OPERATION_IN_PROGRESS (retrying a paused operation while another is active on the wallet and chain), WALLET_NOT_READY',
    errors: [errorBodies.conflict, errorBodies.yieldDisabled, errorBodies.yieldOperationInProgress, errorBodies.walletNotReady],
  },
};

/** What the deposit and withdrawal descriptions share: how the operation runs and its durable key. */
const durableOperation =
  'The work runs in the background and the answer is 202 with `Location`, the operation to poll. `Idempotency-Key` is required and durable (kept with the operation, not for 24 hours): the same key and request answer the existing operation, another request with it is 409 `CONFLICT`. Every step is signed through the policy checks. 409 `YIELD_DISABLED` while execution is switched off.';

/** The REST yield routes: markets, deposits, withdrawals, operations. */
export function yieldRoutes(service: YieldService) {
  const post = (action: 'deposit' | 'withdraw'): RouteDef => ({
    method: 'post',
    path: action === 'deposit' ? '/v1/wallets/{walletId}/yield/deposits' : '/v1/wallets/{walletId}/yield/withdrawals',
    operationId: action === 'deposit' ? 'createYieldDeposit' : 'createYieldWithdrawal',
    examples: yieldExamples[action === 'deposit' ? 'createYieldDeposit' : 'createYieldWithdrawal'],
    summary: action === 'deposit' ? 'Deposit USDC into a yield market' : 'Withdraw USDC from a yield market',
    description: `${
      action === 'deposit'
        ? "Creates a yield operation that approves exactly the amount when the allowance is short, waits for that approval's confirmations, then supplies or deposits."
        : 'Creates a yield operation that withdraws `amount` (or `all`) to the same wallet, simulated before signing.'
    } ${durableOperation}`,
    tag: 'Yield',
    body: yieldBody,
    ownIdempotency: true,
    responses: operationResponses,
    handler: async ({ caller, params, body, req }) => {
      const key = req.headers['idempotency-key'];
      const run = action === 'deposit' ? service.deposit : service.withdraw;
      return run(caller, params.walletId ?? '', key, body);
    },
  });

  return defineRoutes([
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/yield/markets',
      operationId: 'listYieldMarkets',
      examples: yieldExamples.listYieldMarkets,
      summary: "This environment's yield markets",
      description: "Each market's `id` is the `marketId` the other yield routes take. A listed market does not mean execution is enabled: deposits and withdrawals also depend on the deployment's execution switch. The wallet must be an EVM wallet.",
      tag: 'Yield',
      responses: {
        200: { description: 'The markets (not the list envelope: no cursor)', schema: yieldMarketListSchema },
        400: { description: 'INVALID_REQUEST: the wallet is not an EVM wallet' },
        404: { description: 'NOT_FOUND: no such wallet for this partner' },
      },
      handler: async ({ caller, params }) => ({ status: 200, body: await service.listMarkets(caller, params.walletId ?? '') }),
    },
    post('deposit'),
    post('withdraw'),
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/yield/operations/{operationId}',
      operationId: 'getYieldOperation',
      examples: yieldExamples.getYieldOperation,
      summary: 'One yield operation with its signed steps (each links to its transaction record)',
      description: "The operation's status (`pending`, `submitted`, `confirmed`, `failed`, `requires_action`, `cancelled`), its `error` when paused or failed, and its signed steps, approval first, each linking to its transaction record. Available whatever the execution switch says.",
      tag: 'Yield',
      responses: {
        200: { description: 'The operation', schema: yieldOperationSchema },
        400: { description: 'INVALID_REQUEST: the wallet is not an EVM wallet' },
        404: { description: 'NOT_FOUND: no such wallet or operation for this partner' },
      },
      handler: async ({ caller, params }) => ({ status: 200, body: await service.getOperation(caller, params.walletId ?? '', params.operationId ?? '') }),
    },
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/yield/operations/{operationId}/cancel',
      operationId: 'cancelYieldOperation',
      examples: yieldExamples.cancelYieldOperation,
      summary: "Cancel a yield operation's unsigned work",
      description: 'Cancels a `pending` or `requires_action` operation that has no unresolved signed step; a confirmed approval stays. Takes no body. Cancelling again answers the cancelled operation; an unresolved signed transaction, or a confirmed or failed operation, is 409 `CONFLICT`. Available whatever the execution switch says.',
      tag: 'Yield',
      ownIdempotency: true,
      responses: {
        200: { description: 'The cancelled operation (also when it was already cancelled)', schema: yieldOperationSchema },
        400: { description: 'INVALID_REQUEST: the wallet is not an EVM wallet, or a body was sent' },
        404: { description: 'NOT_FOUND: no such wallet or operation for this partner' },
        409: { description: 'CONFLICT: an unresolved signed transaction, a confirmed or failed operation, or the worker holds it this instant (retry)' },
      },
      handler: async ({ caller, params, body }) => {
        if (body !== undefined && !(typeof body === 'object' && body !== null && Object.keys(body).length === 0)) {
          throw new ApiError(400, 'INVALID_REQUEST', 'Invalid request: cancel takes no body');
        }
        return { status: 200, body: await service.cancel(caller, params.walletId ?? '', params.operationId ?? '') };
      },
    },
  ]);
}
