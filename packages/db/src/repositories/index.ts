import type { EncryptedShare } from '@wallet/domain';
import type { Database } from '../database.ts';
import { createApiKeyStore } from './api-keys.ts';
import { createAuditStore } from './audit.ts';
import { createIdempotencyStore } from './idempotency.ts';
import { createDatabaseRateLimitStore } from './rate-limits.ts';
import { createWalletStore } from './wallets.ts';
import { createUserStore } from './users.ts';
import { createCustodyStore, createKeyMaintenanceStore } from './custody.ts';
import { createCustodySettingsStore, resealThresholdShares } from './custody-settings.ts';
import { createChainResetStore, createTransactionStore } from './transactions.ts';
import { createMovedTokens } from './moved-tokens.ts';
import { createNonceGapStore } from './nonce-gaps.ts';
import { createCallNonceStore } from './call-nonces.ts';
import { createTransactionAttemptStore } from './transaction-attempts.ts';
import { createWebhookStore } from './webhooks.ts';
import { createWorkerLeaseStore } from './worker-leases.ts';
import { createStaffStore } from './staff.ts';
import { createConsoleStore } from './console.ts';
import { createConsoleYieldStore } from './console-yield.ts';
import { createPolicyStore } from './policies.ts';
import { createPolicyMeterStore } from './policy-meters.ts';
import { createYieldOperationStore } from './yield-operations.ts';
import { createAuthorizationScopeStore } from './authorization-scopes.ts';
import { createPermissionsExtensionStore } from './permissions-extension.ts';
import { createServiceKeyStore } from './service-keys.ts';
import { createSponsorshipStore } from './sponsorship.ts';
import { createAutoRetrySettingsStore } from './auto-retry-settings.ts';
import { createSponsoredOperationStore } from './sponsored-operations.ts';
import { createApprovalConfigurationStore } from './approval-configurations.ts';
import { createApprovalPreparationStore } from './approval-preparations.ts';
import { createApprovalCaseLinks } from './approval-case-links.ts';
import { createAuthorizationScopeDirectoryStore } from './authorization-scope-directory.ts';
import { createApprovalCaseStore } from './approval-cases.ts';
import { createDelegationStore } from './delegation.ts';
import { createSearchStore } from './search.ts';
import { createRequestLogStore } from './request-log.ts';

export { createRedisRateLimitStore } from './redis-rate-limits.ts';

/** Every store port of the domain, implemented over one database (Prisma, plus the driver for hot statements). */
export function createStores(database: Database) {
  const { prisma } = database;
  return {
    apiKeys: createApiKeyStore(database),
    wallets: createWalletStore(database),
    audit: createAuditStore(database),
    idempotency: createIdempotencyStore(database),
    rateLimits: createDatabaseRateLimitStore(database),
    users: createUserStore(prisma),
    custody: createCustodyStore(prisma),
    keyMaintenance: createKeyMaintenanceStore(prisma),
    /** The custody mode of new EVM and COSMOS wallets per project and environment. */
    custodySettings: createCustodySettingsStore(prisma),
    /** Threshold shares re-sealed in place after a fresh OT setup or an abort. */
    resealThresholdShares: (walletId: string, shares: EncryptedShare[], action: string) => resealThresholdShares(prisma, walletId, shares, action),
    transactions: createTransactionStore(database),
    /** The ERC-20 contracts a wallet's records moved on a chain (the balances route reads them too). */
    movedTokens: createMovedTokens(database),
    /** Fee replacements of EVM transfer records (managed automatic retry). */
    transactionAttempts: createTransactionAttemptStore(database),
    /** Stranded wallets: candidates, held nonces, and the nonce a gap filler reserves. */
    nonceGaps: createNonceGapStore(database),
    callNonces: createCallNonceStore(database),
    chainReset: createChainResetStore(database),
    webhooks: createWebhookStore(database),
    staff: createStaffStore(database),
    console: createConsoleStore(database),
    /** The console search box's indexed lookups across a partner's projects. */
    search: createSearchStore(database),
    /** The console's yield operation reads (the operations themselves are `yieldOperations`). */
    consoleYield: createConsoleYieldStore(database),
    policies: createPolicyStore(database),
    /** Policy spend meters (the evaluation's MeterStore) and their pruning. */
    policyMeters: createPolicyMeterStore(database),
    /** Authorization scope assignments and wallet bindings, with their revisions. */
    authorizationScopes: createAuthorizationScopeStore(database),
    /** The console's read of the scope ids in use per project and environment. */
    authorizationScopeDirectory: createAuthorizationScopeDirectoryStore(database),
    /** The permissions v2 extension switch per project and environment. */
    permissionsExtension: createPermissionsExtensionStore(database),
    /** Gas sponsorship settings per project and environment, and the daily budget reservations. */
    sponsorship: createSponsorshipStore(database),
    /** The per-project default of managed automatic retry for transfers. */
    autoRetrySettings: createAutoRetrySettingsStore(database),
    /** Sponsored transfer records under the sponsored worker's lease. */
    sponsoredOperations: createSponsoredOperationStore(database),
    /** The service's own sponsor and relayer keys, one per purpose and EVM chain (encrypted under the service KEK). */
    serviceKeys: createServiceKeyStore(database),
    /** Approval requirement configurations per scope, with their revisions (`configuredValues` is the signing side's read). */
    approvalConfigurations: createApprovalConfigurationStore(database),
    /** The open approval cases a configuration change reaches (refused with their ids, or invalidated with force). */
    approvalCaseLinks: createApprovalCaseLinks(database),
    /** Conditional approval cases and their decisions. */
    approvalCases: createApprovalCaseStore(database),
    /** What EVM transfers awaiting approval were prepared with (reused by the approved resend). */
    approvalPreparations: createApprovalPreparationStore(database),
    /** Users' delegation consents and adjustable parameter values, with their revisions. */
    delegation: createDelegationStore(database),
    /** The request log: batched appends (the request-log writer), partner-scoped reads, pruning. */
    requestLog: createRequestLogStore(database),
    workerLeases: createWorkerLeaseStore(database),
    yieldOperations: createYieldOperationStore(database),
  };
}

export type Stores = ReturnType<typeof createStores>;
