import { ApiError, errorBodies, yieldMarketListSchema, yieldOperationSchema, type YieldService } from '@wallet/domain';
import { z } from 'zod';
import { defineRoutes, type RouteDef } from '../http/route.ts';

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
    errors: [errorBodies.yieldDisabled, errorBodies.yieldOperationInProgress, errorBodies.walletNotReady],
  },
};

/** The REST yield routes: markets, deposits, withdrawals, operations. */
export function yieldRoutes(service: YieldService) {
  const post = (action: 'deposit' | 'withdraw'): RouteDef => ({
    method: 'post',
    path: action === 'deposit' ? '/v1/wallets/{walletId}/yield/deposits' : '/v1/wallets/{walletId}/yield/withdrawals',
    operationId: action === 'deposit' ? 'createYieldDeposit' : 'createYieldWithdrawal',
    summary:
      action === 'deposit'
        ? 'Deposit USDC into a yield market: approves exactly the amount when the allowance is short, waits for its confirmations, then supplies or deposits. Requires a durable Idempotency-Key'
        : 'Withdraw USDC (or `all`) from a yield market to the same wallet, simulated before signing. Requires a durable Idempotency-Key',
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
      summary: "This environment's yield markets; each `id` is the `marketId` of the other yield routes. A listed market does not mean execution is enabled",
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
      summary: 'One yield operation with its signed steps (each links to its transaction record)',
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
      summary: 'Cancels unsigned work (pending or requires_action); a confirmed approval stays. No body',
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
