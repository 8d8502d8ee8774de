/**
 * The zod schemas the console's forms validate with: the API's own, from @wallet/domain (the same
 * ones the tRPC procedures parse with). Their modules sit beside server code that imports node:
 * built-ins; next.config.ts stubs those in the browser bundle (src/lib/node-stub.ts).
 */
export { signInInput } from '@wallet/domain/staff/schemas.ts';
export {
  createProjectApiKeyInput,
  createProjectInput,
  updateApiKeyInput,
  webhookResendInput,
  webhookSetInput,
  yieldOperationStatuses,
} from '@wallet/domain/console/schemas.ts';
export { WEBHOOK_EVENT_TYPES } from '@wallet/domain/webhooks/event-types.ts';
export { environments, plans } from '@wallet/domain/api-keys/plans.ts';
export { intentKinds, transactionStatuses } from '@wallet/domain/transactions/schemas.ts';
export { walletStatuses, walletTypes } from '@wallet/domain/wallets/schemas.ts';
export { approvalCaseStatuses, partnerReviewStatuses } from '@wallet/domain/approvals/ports.ts';
export { sponsorshipLimitsSchema } from '@wallet/domain/sponsorship/settings.ts';
