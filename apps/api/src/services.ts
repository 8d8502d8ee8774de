import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import {
  createApiKeyService,
  createIdempotency,
  createPruner,
  createRateLimiter,
  createChainService,
  createMigrationService,
  createSigningService,
  createSigningPipeline,
  createPolicyEngine,
  createPolicyUsage,
  createPolicyDryRun,
  createUserService,
  createWalletService,
  createCustodyModeService,
  systemClock,
  type ChainDirectory,
  type ChainGateways,
  createTransactionService,
  createTransactionMonitor,
  createNonceGapRepair,
  createFeeReplacer,
  createSolanaRebuilder,
  createYieldRunner,
  createYieldSteps,
  type Clock,
  type MonitorCadence,
  type LocalDevnetEndpoints,
  type LocalFaucet,
  createWebhookDelivery,
  createWebhookService,
  createStaffService,
  createConsoleService,
  createPartnerScope,
  createPolicyService,
  createPermissionsExtension,
  createSponsorship,
  createServiceKeys,
  createSponsorshipStatus,
  createSponsoredAdmission,
  createSponsoredRunner,
  createSponsoredWakeups,
  createSponsoredResume,
  sponsoredChainAccess,
  type SponsoredOperationChain,
  type SponsorshipChainConfig,
  type LocalSponsorshipSetup,
  createAuthorizationScopeService,
  createApprovalConfigurationService,
  createAuthorizationScopeReads,
  createConsoleApprovalCases,
  createConsoleWalletSupport,
  createConsoleCustodyModes,
  createSearchService,
  createConsolePartnerReviews,
  createConsoleApprovalConfigurations,
  createConsoleAuthorizationScopes,
  createConsoleSponsorship,
  createConsoleAutoRetry,
  createAutoRetrySettings,
  createApprovalCaseService,
  createPartnerReviewService,
  createDelegationService,
  type WebhookDeliveryDeps,
  type WebhookSender,
  type PolicyEngine,
  createYieldExecutionSwitch,
  createYieldMarketCatalog,
  createYieldService,
  createYieldPositionService,
  type LocalYieldContracts,
  type KeyVault,
  createConsoleRequestLog,
  createBalanceService,
  type BalanceChains,
  type BatchCallChain,
} from '@wallet/domain';
import { createRedisRateLimitStore, createStores, openDatabase, type Database } from '@wallet/db';
import type { Config } from './config.ts';
import { createHttpsSender } from './webhooks/https-sender.ts';
import { createLogger, type Logger } from './logger.ts';
import { createRequestLogWriter } from './request-log/writer.ts';
import { crashAtPoint, withLocalSponsorship } from './service-wiring.ts';
import { apiKekProvider } from './custody/signer-connection.ts';
import { createCustodyServices } from './custody/custody-services.ts';
import type { SignerCaller } from './custody/remote-vault.ts';
import { createCallsWiring } from './calls-wiring.ts';

export interface ServiceOptions {
  /**
   * The chains this deployment talks to, and in local mode the devnet faucet, yield contracts, RPC
   * URLs and the sponsorship setup (run here, once the service keys can be read).
   */
  chains?: {
    directory: ChainDirectory;
    gateways: ChainGateways;
    /** The balances route's batched reads (absent: every chain's balances answer 503). */
    balances?: BalanceChains;
    /** Sponsored user operations over a configured chain's RPC (absent: no sponsorship). */
    sponsoredOperations?: (config: SponsorshipChainConfig) => SponsoredOperationChain | undefined;
    /** Batched calls through the wallet's delegation over a chain's RPC (absent: no batches). */ batchCalls?: (chainId: number, delegate: `0x${string}`) => BatchCallChain | undefined;
    faucet?: LocalFaucet;
    yield?: LocalYieldContracts;
    endpoints?: LocalDevnetEndpoints;
    sponsorship?: LocalSponsorshipSetup;
  };
  /** An already open database (tests); otherwise one is opened from the configuration. */
  database?: Database;
  clock?: Clock;
  /** The yield worker's lease owner (default host:pid:random). */
  yieldWorker?: { owner?: string };
  /** The sponsored-transfer worker's lease owner (default host:pid:random). */
  sponsoredWorker?: { owner?: string };
  /** The transaction monitor's lease owner (default host:pid:random) and cadence overrides. */
  monitor?: { owner?: string; cadence?: Partial<MonitorCadence>; batchSize?: number };
  /** Webhook delivery overrides (tests): lease owner, sender, engine options, jitter source. */
  webhooks?: { owner?: string; send?: WebhookSender; options?: WebhookDeliveryDeps['options']; random?: () => number };
  /** The signing pipeline's policy port (default: the policy engine over the stored policies and spend meters). */
  signing?: { policy?: PolicyEngine };
  calls?: { /** Tests only: batches signed without their simulation, so that a reverting one reaches the chain. */ skipSimulation?: boolean };
  /**
   * The key vault (tests): a vault holding the keys in this process. Otherwise the signer process
   * configured (SIGNER_URL, or the local one in DATA_DIR/signer) signs every signature.
   */
  vault?: KeyVault;
  /**
   * The signer to call (tests: its handlers in this process, `@wallet/signer/in-process`); the API's
   * own vault (FROST participant 1) and the key maintenance run over it.
   */
  signerCaller?: SignerCaller;
  /** Where the request-log writer warns about dropped entries (default: a logger at the configured level). */
  logger?: Pick<Logger, 'warn'>;
}

/** A lease owner name unique to this monitor: host, process and a random part. */
export const monitorOwnerName = () => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/** The configured database: PostgreSQL at DATABASE_URL, else the embedded one in DATA_DIR/db. */
export function openConfiguredDatabase(config: Config): Promise<Database> {
  return openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: path.join(config.dataDir, 'db') });
}

/** Wires the domain use cases to their stores. REST, the CLI and later tRPC/GraphQL all go through this. */
export async function createServices(config: Config, options: ServiceOptions = {}) {
  const database = options.database ?? (await openConfiguredDatabase(config));
  const clock = options.clock ?? systemClock;
  const stores = createStores(database);
  const keks = apiKekProvider(config);
  const custody = createCustodyServices(config, options, { stores, keks, database });
  const { vault, keyMaintenance } = custody;
  const wallets = createWalletService({ wallets: stores.wallets, vault, custodySettings: stores.custodySettings });
  const custodyMode = createCustodyModeService({ settings: stores.custodySettings });
  const directory = options.chains?.directory ?? { list: () => [] };
  const gateways = options.chains?.gateways ?? { evm: () => undefined, solana: () => undefined };
  // Policies decide every signature at the one signing choke point, reserving spend as they decide.
  const permissionsExtension = createPermissionsExtension({ store: stores.permissionsExtension, clock });
  const authorizationScopes = createAuthorizationScopeService({ store: stores.authorizationScopes, extension: permissionsExtension, clock, loadWallet: wallets.loadWallet });
  const approvalConfigurations = createApprovalConfigurationService({
    store: stores.approvalConfigurations,
    policies: stores.policies,
    cases: stores.approvalCaseLinks,
    extension: permissionsExtension,
    clock,
  });
  // Conditional approvals (guardrail rule 4) open cases only where the extension is enabled.
  const policyEngine = createPolicyEngine({
    store: stores.policies,
    meters: stores.policyMeters,
    clock,
    approvalsAvailable: async (at) => (await stores.permissionsExtension.find(at))?.enabled ?? false,
  });
  const approvalCases = createApprovalCaseService({
    store: stores.approvalCases,
    scopes: stores.authorizationScopes,
    policies: stores.policies,
    clock,
    // The scope's configured values (requirement configuration routes) replace the policy defaults at opening.
    configuredValues: (at, scopeId, policyId, policyVersion, requirementId) =>
      stores.approvalConfigurations.configuredValues(at, scopeId, policyId, Number(policyVersion), requirementId),
    preparations: stores.approvalPreparations,
  });
  const partnerReviews = createPartnerReviewService({ store: stores.approvalCases, policies: stores.policies, clock });
  const serviceKeys = createServiceKeys({ store: stores.serviceKeys, vault, clock });
  // Local mode: the devnet's paymaster is signed by the sponsor key, which lives in this database under the service KEK.
  const localSponsorship = options.chains?.sponsorship ? await options.chains.sponsorship(serviceKeys) : undefined;
  const sponsorshipChains = [...config.sponsorship, ...(localSponsorship ? [localSponsorship.chain] : [])];
  const sponsorship = createSponsorship({ store: stores.sponsorship, clock });
  const autoRetrySettings = createAutoRetrySettings({ store: stores.autoRetrySettings, clock });
  const sponsoredChains = sponsoredChainAccess(sponsorshipChains, gateways, options.chains?.sponsoredOperations);
  const signingPipeline = createSigningPipeline({ audit: stores.audit, vault, clock, policy: options.signing?.policy ?? policyEngine, approvals: approvalCases.gate });
  // What transfers and batched calls share.
  const transactionDeps = {
    store: stores.transactions, autoRetryDefault: autoRetrySettings.projectDefault, pipeline: signingPipeline, gateways, directory, clock,
    loadWallet: wallets.loadWallet, loadWalletWithShares: wallets.loadWalletWithShares, yieldHolds: stores.yieldOperations.holdsWalletChain,
    openNonceHold: approvalCases.openNonceHold, nonceReservationMs: config.nonceReservationMs, crashAt: crashAtPoint(config.crashAt),
  };
  // Admission and resume wake this process's sponsored worker; the worker still leases each record.
  const sponsoredWakeups = createSponsoredWakeups();
  const transactions = createTransactionService({
    ...transactionDeps,
    attempts: stores.transactionAttempts,
    frozenPreparations: stores.approvalPreparations,
    sponsoredAdmission: createSponsoredAdmission({ store: stores.transactions, sponsorship, chains: () => sponsoredChains, clock, wake: sponsoredWakeups.due }),
    sponsoredResume: createSponsoredResume({ records: stores.transactions, store: stores.sponsoredOperations, loadWallet: wallets.loadWallet, clock, wake: sponsoredWakeups.due }),
  });
  const calls = createCallsWiring({ ...transactionDeps, batchCalls: options.chains?.batchCalls, sponsorshipChains, sponsorship, sponsoredChains: () => sponsoredChains, sponsoredWake: sponsoredWakeups.due, burnNonce: stores.callNonces.burnNonce, skipSimulation: options.calls?.skipSimulation });
  const sponsoredRunner = createSponsoredRunner({
    store: stores.sponsoredOperations,
    transactions: stores.transactions,
    pipeline: signingPipeline,
    serviceKeys,
    sponsorship,
    chains: (chainId) => sponsoredChains.find((c) => c.config.chainId === chainId),
    loadWalletWithShares: wallets.loadWalletWithShares,
    isDevnet: transactions.isDevnet,
    clock,
    owner: options.sponsoredWorker?.owner ?? monitorOwnerName(),
    leaseMs: config.sponsoredLeaseMs,
    autoRetry: config.autoRetry,
    crashAt: crashAtPoint(config.crashAt),
    logger: options.logger,
    wakeups: sponsoredWakeups,
  });
  const yieldCatalog = createYieldMarketCatalog({ appEnv: config.appEnv, configured: config.yield.markets, directory, local: options.chains?.yield });
  const yieldRunner = createYieldRunner({
    store: stores.yieldOperations,
    steps: createYieldSteps({
      store: stores.yieldOperations,
      transactions: stores.transactions,
      pipeline: signingPipeline,
      clock,
      isDevnet: transactions.isDevnet,
      loadWalletWithShares: wallets.loadWalletWithShares,
      autoRetryDefault: autoRetrySettings.projectDefault,
      crashAt: crashAtPoint(config.crashAt),
    }),
    gateways,
    markets: yieldCatalog.list,
    clock,
    owner: options.yieldWorker?.owner ?? monitorOwnerName(),
    leaseMs: config.yield.leaseMs,
    loadWallet: wallets.loadWallet,
    loadRecord: (operation, transactionId) => stores.transactions.findInWallet(operation.projectId, operation.walletId, transactionId),
    releaseNonce: stores.transactions.releaseNonce,
  });
  const monitor = createTransactionMonitor({
    store: stores.transactions,
    gateways,
    clock,
    isDevnet: transactions.isDevnet,
    owner: options.monitor?.owner ?? monitorOwnerName(),
    cadence: options.monitor?.cadence,
    batchSize: options.monitor?.batchSize,
    leaseMs: config.monitorLeaseMs,
    autoRetry: {
      attempts: stores.transactionAttempts,
      replacer: createFeeReplacer({ pipeline: signingPipeline, attempts: stores.transactionAttempts, loadWalletWithShares: wallets.loadWalletWithShares }),
      rebuilder: createSolanaRebuilder({ pipeline: signingPipeline, gateways, attempts: stores.transactionAttempts, loadWalletWithShares: wallets.loadWalletWithShares }),
      ...config.autoRetry,
      crashAt: crashAtPoint(config.crashAt),
    },
  });
  const nonceGaps = createNonceGapRepair({
    gaps: stores.nonceGaps,
    transactions: stores.transactions,
    gateways,
    pipeline: signingPipeline,
    clock,
    isDevnet: transactions.isDevnet,
    loadWalletWithShares: wallets.loadWalletWithShares,
    strandedAfterMs: config.nonceGapAfterMs,
    reservationMs: config.nonceReservationMs,
  });
  const webhookSender =
    options.webhooks?.send ??
    createHttpsSender({
      extraCaPem: config.webhooks.caFile ? readFileSync(config.webhooks.caFile, 'utf8') : undefined,
      localCaFile: config.webhooks.localCaFile,
      allowPrivateAddresses: config.webhooks.allowPrivateAddresses,
    });
  const webhookDelivery = createWebhookDelivery({
    store: stores.webhooks,
    keks,
    clock,
    send: webhookSender,
    owner: options.webhooks?.owner,
    random: options.webhooks?.random,
    options: {
      timeoutMs: config.webhooks.timeoutMs,
      ...(config.webhooks.leaseMs ? { leaseMs: config.webhooks.leaseMs } : {}),
      retry: {
        ...(config.webhooks.retryBaseMs ? { baseMs: config.webhooks.retryBaseMs } : {}),
        ...(config.webhooks.retryMaxMs ? { maxDelayMs: config.webhooks.retryMaxMs } : {}),
      },
      ...options.webhooks?.options,
    },
  });
  const apiKeys = createApiKeyService({ apiKeys: stores.apiKeys, audit: stores.audit, clock, authCacheMs: config.authCacheMs });
  const webhooks = createWebhookService({
    store: stores.webhooks,
    apiKeys: stores.apiKeys,
    audit: stores.audit,
    keks,
    clock,
    ping: webhookDelivery.ping,
    allowPrivateAddresses: config.webhooks.allowPrivateAddresses,
  });
  const yieldPositions = createYieldPositionService({ catalog: yieldCatalog, gateways, loadWallet: wallets.loadWallet });
  const redis = config.redisUrl ? createRedisRateLimitStore(config.redisUrl) : undefined;
  const devnetEndpoints = withLocalSponsorship(options.chains?.endpoints, localSponsorship);
  const requestLog = config.requestLog.enabled ? createRequestLogWriter({ store: stores.requestLog, logger: options.logger ?? createLogger(config.logLevel) }) : undefined;

  return {
    database,
    stores,
    apiKeys,
    wallets,
    signing: createSigningService({ pipeline: signingPipeline, loadWalletWithShares: wallets.loadWalletWithShares, broadcastSigned: transactions.broadcastSigned }),
    transactions,
    /** Checks due broadcast records against their chains; run by the monitor worker (workers/monitor-worker.ts). */
    monitor,
    /** Stranded wallets (a nonce below their waiting transactions that nothing holds) and the gap fillers that repair them. */
    nonceGaps,
    gateways,
    /** npm run custody: Ed25519 XOR wallets to FROST, refresh of every wallet's shares (absent with an in-process vault). */
    keyMaintenance,
    migration: createMigrationService({ custody: stores.custody, wallets: stores.wallets, vault, clock, loadWallet: wallets.loadWallet }),
    chains: createChainService({
      directory,
      faucet: options.chains?.faucet,
      devnets: devnetEndpoints,
      loadWallet: wallets.loadWallet,
      findWallet: (id) => stores.wallets.findById(id),
    }),
    localFaucet: options.chains?.faucet,
    localDevnets: devnetEndpoints,
    /** Console staff accounts and sessions (tRPC, GraphQL, the staff CLI). */
    staff: createStaffService({ store: stores.staff, clock }),
    /** The custody mode of new EVM and COSMOS wallets (npm run custody -- mode). */
    custodyMode,
    users: createUserService({ users: stores.users, custody: stores.custody, vault }),
    rateLimit: createRateLimiter(redis ?? stores.rateLimits, clock),
    runIdempotent: createIdempotency(stores.idempotency, clock, { leaseMs: config.idempotencyLeaseMs }),
    pruner: createPruner({
      idempotency: stores.idempotency,
      rateLimits: stores.rateLimits,
      spendMeters: stores.policyMeters,
      requestLog: { store: stores.requestLog, retentionMs: config.requestLog.retentionDays * 24 * 3_600_000 },
      clock,
    }),
    /** The request log's batched writer (undefined when REQUEST_LOG=off); the HTTP pipeline feeds it. */
    requestLog,
    /** Support's partner-scoped reads of the request log (GraphQL, tRPC). */
    consoleRequestLog: createConsoleRequestLog({ store: stores.requestLog }),
    /** Webhook configuration per API key, test pings, delivery log and resend (CLI now, tRPC next). */
    webhooks,
    /** The console's use cases (tRPC, GraphQL), scoped to the signed-in staff member's partner. */
    console: createConsoleService({
      store: stores.console,
      apiKeyStore: stores.apiKeys,
      apiKeys,
      webhooks,
      yield: { store: stores.consoleYield, operations: stores.yieldOperations, positions: yieldPositions, markets: yieldCatalog.list },
      directory,
      nonceGaps,
      audit: stores.audit,
      clock,
      attempts: stores.transactionAttempts,
    }),
    /** Partner policies and their versions (REST reads, console and CLI writes, evaluation). */
    policies: createPolicyService({ store: stores.policies, clock, partnerScope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }) }),
    /** The signing pipeline's policy stage (its `explain` is the dry run). */
    policyEngine,
    /** The permissions v2 extension switch per project and environment (CLI now, console next). */
    permissionsExtension,
    /** Gas sponsorship per project and environment: settings (sponsorship CLI), admission, gas cap and daily budget. */
    sponsorship,
    /** Carries sponsored transfers from `accepted` to their outcome; run by the sponsored worker (workers/sponsored-worker.ts). */
    sponsoredRunner,
    /** The console's Sponsorship page (tRPC) and GraphQL read: the use cases above, acting as the staff member (owners change). */
    consoleSponsorship: createConsoleSponsorship({
      scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }),
      sponsorship: createSponsorship({ store: stores.sponsorship, clock }),
      staff: stores.staff,
    }),
    /** The console's setting of managed automatic retry per project and environment (tRPC; owners change it). */
    consoleAutoRetry: createConsoleAutoRetry({
      scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }),
      settings: autoRetrySettings,
      staff: stores.staff,
    }),
    /** The service's sponsor and relayer keys per EVM chain: created on first use, signed with by the signer only. */
    serviceKeys,
    /** Whether the signer process answers (GET /health, the console's overview); an in-process test vault always does. */
    signerHealth: custody.signerHealth,
    checkSignatureLog: custody.checkSignatureLog,
    /** Where sponsored transfers run: SPONSORSHIP, with the devnet's entry in local mode. */
    sponsorshipChains,
    /** Per sponsorship chain: the paymaster's deposit and the relayer's balance, flagged when low (the console shows it). */
    sponsorshipStatus: createSponsorshipStatus({
      chains: sponsorshipChains,
      gateways,
      relayerAddress: async (chainId) => (await serviceKeys.ensureServiceKey('relayer', chainId)).address,
    }),
    /** Authorization scopes: user assignments and wallet bindings, revision-checked (REST /v1/permissions-v2). */
    authorizationScopes,
    /** The console's scopes pages (tRPC, GraphQL): the REST use cases above, acting as the staff member. */
    consoleScopes: createConsoleAuthorizationScopes({
      scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }),
      scopes: authorizationScopes,
      extension: permissionsExtension,
      reads: createAuthorizationScopeReads({ directory: stores.authorizationScopeDirectory, extension: stores.permissionsExtension }),
    }),
    /** Approval requirements of a scope and their per-scope configuration, revision-checked (REST /v1/permissions-v2). */
    approvalConfigurations,
    /** The console's approval configurations page (tRPC): the REST use cases above, acting as the staff member. */
    consoleApprovalConfigurations: createConsoleApprovalConfigurations({
      scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }),
      configurations: approvalConfigurations,
    }),
    /** Conditional approval cases: partner reads and cancel (REST), user decisions (users CLI), the signing gate. */
    approvalCases,
    /** Partner reviews (require_approval without approvalRequirement): REST with the key, the console with `caller.actor` staff. */
    partnerReviews,
    /** The console's partner review queue (tRPC): the review use cases above, decided by owners as the staff member. */
    consolePartnerReviews: createConsolePartnerReviews({ scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }), reviews: partnerReviews }),
    /** The console's overview: each environment's custody mode for new EVM and COSMOS wallets (read-only; operators set it with the custody CLI). */
    consoleCustodyModes: createConsoleCustodyModes({ scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }), custodyMode }),
    /** The console's wallet page: the policies that select the wallet. */
    consoleWalletSupport: createConsoleWalletSupport({ scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }), policies: stores.policies, clock }),
    /** The console's "Reviews & cases" page (tRPC) and support GraphQL: the case use cases above, acting as the staff member. */
    consoleApprovalCases: createConsoleApprovalCases({
      scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }),
      cases: approvalCases,
      store: stores.approvalCases,
      audit: stores.audit,
    }),
    /** The console's search box (GraphQL `search`, tRPC `search.query`): one use case across the partner's projects. */
    search: createSearchService({ store: stores.search }),
    /** Users' delegation consents and adjustable parameter values: partner reads (REST), user writes (users CLI). */
    delegation: createDelegationService({
      store: stores.delegation,
      policies: stores.policies,
      extension: permissionsExtension,
      clock,
      findWallet: (id) => stores.wallets.findById(id),
    }),
    /** Spend meters of a policy for a wallet and the calling key (GET .../policies/{policyId}/usage). */
    policyUsage: createPolicyUsage({ store: stores.policies, meters: stores.policyMeters, clock, loadWallet: wallets.loadWallet }),
    /** The dry run: the decision a signing or transfer body would get, with its trace (POST /v1/permissions-v2/evaluate). */
    policyDryRun: createPolicyDryRun({ explain: policyEngine.explain, loadWallet: wallets.loadWallet, previewTransfer: transactions.previewTransfer, previewCalls: (...a) => calls.preview(...a) }),
    /** Yield markets of this environment (catalog, lookup) and the execution switch (REST yield routes). */
    yield: createYieldService({
      catalog: yieldCatalog,
      execution: createYieldExecutionSwitch(config.yield.execution),
      loadWallet: wallets.loadWallet,
      operations: stores.yieldOperations,
      clock,
      openNonceHold: approvalCases.openNonceHold,
    }),
    /** Advances yield operations step by step; run by the yield worker (workers/yield-worker.ts). */
    yieldRunner,
    /** Wallet balances read from the chain: REST GET .../balances, the console (tRPC, GraphQL). */
    balances: createBalanceService({
      directory,
      chains: options.chains?.balances ?? { evm: () => undefined, solana: () => undefined },
      movedTokens: stores.movedTokens,
      loadWallet: wallets.loadWallet,
      scope: createPartnerScope({ store: stores.console, apiKeys: stores.apiKeys }),
    }),
    /** Yield positions, read from the chain (GET .../yield/position). */
    yieldPositions,
    /** Batched calls (POST .../calls): atomic, in one transaction through the wallet's delegation. */ calls,
    /** Dispatches outbox events and sends them; run by the webhook worker (workers/webhook-worker.ts). */
    webhookDelivery,
    async close() {
      await requestLog?.stop();
      await webhookDelivery.stop();
      if ('close' in webhookSender && typeof webhookSender.close === 'function') webhookSender.close();
      await redis?.close();
      await custody.close();
      if (!options.database) await database.close();
    },
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
