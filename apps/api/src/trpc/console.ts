import {
  apiKeyIdInput,
  broadcastsPerDayInput,
  createProjectApiKeyInput,
  createProjectInput,
  projectIdInput,
  transactionIdInput,
  transactionListInput,
  updateApiKeyInput,
  walletIdInput,
  walletApprovalCasesInput,
  walletListInput,
  webhookDeliveriesInput,
  webhookResendInput,
  webhookSetInput,
  yieldOperationIdInput,
  yieldOperationListInput,
} from '@wallet/domain';
import { router, staffProcedure, writeProcedure } from './trpc.ts';

/**
 * The console's procedures. Each one parses with the domain's schema and calls one use case of
 * `services.console`, which scopes everything to `ctx.staff.partnerId`; no rule lives here.
 * Writes use `writeProcedure` (support staff: 403).
 */

export const projectsRouter = router({
  list: staffProcedure.query(({ ctx }) => ctx.services.console.projects.list(ctx.staff)),
  create: writeProcedure.input(createProjectInput).mutation(({ ctx, input }) => ctx.services.console.projects.create(ctx.staff, input)),
});

export const apiKeysRouter = router({
  list: staffProcedure.input(projectIdInput).query(({ ctx, input }) => ctx.services.console.apiKeys.list(ctx.staff, input)),
  /** The secret is in this answer only. */
  create: writeProcedure.input(createProjectApiKeyInput).mutation(({ ctx, input }) => ctx.services.console.apiKeys.create(ctx.staff, input)),
  rotate: writeProcedure.input(apiKeyIdInput).mutation(({ ctx, input }) => ctx.services.console.apiKeys.rotate(ctx.staff, input)),
  revoke: writeProcedure.input(apiKeyIdInput).mutation(({ ctx, input }) => ctx.services.console.apiKeys.revoke(ctx.staff, input)),
  update: writeProcedure.input(updateApiKeyInput).mutation(({ ctx, input }) => ctx.services.console.apiKeys.update(ctx.staff, input)),
});

export const walletsRouter = router({
  list: staffProcedure.input(walletListInput).query(({ ctx, input }) => ctx.services.console.wallets.list(ctx.staff, input)),
  get: staffProcedure.input(walletIdInput).query(({ ctx, input }) => ctx.services.console.wallets.get(ctx.staff, input)),
  /** The chains the wallet is stranded on now: missing nonces and how many transactions wait behind them ([] when none). */
  nonceGaps: staffProcedure.input(walletIdInput).query(({ ctx, input }) => ctx.services.console.wallets.nonceGaps(ctx.staff, input)),
  /** A gap filler at each missing nonce now; audited `wallet.nonce_gap.fill` with the staff member. */
  fillNonceGaps: writeProcedure
    .input(walletIdInput)
    .mutation(({ ctx, input }) => ctx.services.console.wallets.fillNonceGaps({ ...ctx.staff, requestId: ctx.requestId }, input)),
  /** The active policies (both environments) whose selector takes the wallet. */
  policies: staffProcedure.input(walletIdInput).query(({ ctx, input }) => ctx.services.consoleWalletSupport.policies(ctx.staff, input)),
  /** The wallet's approval cases, newest first (both environments). */
  approvalCases: staffProcedure
    .input(walletApprovalCasesInput)
    .query(({ ctx, input }) => ctx.services.consoleApprovalCases.ofWallet({ ...ctx.staff, requestId: ctx.requestId }, input)),
});

/** The configured chains (GET /v1/chains): the console formats amounts with their symbols and decimals. */
export const chainsRouter = router({
  list: staffProcedure.query(({ ctx }) => ctx.services.chains.list().chains),
});

export const transactionsRouter = router({
  list: staffProcedure.input(transactionListInput).query(({ ctx, input }) => ctx.services.console.transactions.list(ctx.staff, input)),
  get: staffProcedure.input(transactionIdInput).query(({ ctx, input }) => ctx.services.console.transactions.get(ctx.staff, input)),
});

export const yieldRouter = router({
  /** A project's operations (or one wallet's), newest first, optionally by status. */
  list: staffProcedure.input(yieldOperationListInput).query(({ ctx, input }) => ctx.services.console.yield.list(ctx.staff, input)),
  get: staffProcedure.input(yieldOperationIdInput).query(({ ctx, input }) => ctx.services.console.yield.get(ctx.staff, input)),
  /** The wallet's position in every market of the catalog (read from the chain). */
  positions: staffProcedure.input(walletIdInput).query(({ ctx, input }) => ctx.services.console.yield.positions(ctx.staff, input)),
  cancel: writeProcedure.input(yieldOperationIdInput).mutation(({ ctx, input }) => ctx.services.console.yield.cancel(ctx.staff, input)),
});

export const webhooksRouter = router({
  /** The subscribable event types (for the console's form). */
  eventTypes: staffProcedure.query(({ ctx }) => [...ctx.services.console.webhooks.eventTypes]),
  get: staffProcedure.input(apiKeyIdInput).query(({ ctx, input }) => ctx.services.console.webhooks.get(ctx.staff, input)),
  set: writeProcedure.input(webhookSetInput).mutation(({ ctx, input }) => ctx.services.console.webhooks.set(ctx.staff, input)),
  rotateSecret: writeProcedure.input(apiKeyIdInput).mutation(({ ctx, input }) => ctx.services.console.webhooks.rotateSecret(ctx.staff, input)),
  testPing: writeProcedure.input(apiKeyIdInput).mutation(({ ctx, input }) => ctx.services.console.webhooks.testPing(ctx.staff, input)),
  deliveries: staffProcedure.input(webhookDeliveriesInput).query(({ ctx, input }) => ctx.services.console.webhooks.deliveries(ctx.staff, input)),
  resend: writeProcedure.input(webhookResendInput).mutation(({ ctx, input }) => ctx.services.console.webhooks.resend(ctx.staff, input)),
});

export const overviewRouter = router({
  broadcastsPerDay: staffProcedure.input(broadcastsPerDayInput).query(({ ctx, input }) => ctx.services.console.overview.broadcastsPerDay(ctx.staff, input)),
  /** Whether the signer process that holds every key answers this API process (signing is 503 SIGNER_UNAVAILABLE while not). */
  signer: staffProcedure.query(async ({ ctx }) => {
    const health = await ctx.services.signerHealth();
    return { reachable: health.reachable, latencyMs: health.latencyMs ?? null };
  }),
  /** Each environment's custody mode for the project's new EVM and COSMOS wallets, with the review label of the threshold mode. */
  custodyModes: staffProcedure.input(projectIdInput).query(({ ctx, input }) => ctx.services.consoleCustodyModes.ofProject(ctx.staff, input)),
});
