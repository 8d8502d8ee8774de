import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { ApiKeyService } from '../api-keys/service.ts';
import { ApiError, conflict, invalidRequest, notFound } from '../errors.ts';
import type { ApiKeyRecord, ApiKeyStore, AuditStore, TransactionRecord, WalletRecord } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import { encodeCursor, keysetPage, type KeysetPosition } from '../shared/cursor.ts';
import { parseInput } from '../shared/zod.ts';
import { requireWriteAccess, type StaffPrincipal } from '../staff/service.ts';
import { toTransactionDetail, toTransactionSummary } from '../transactions/service.ts';
import type { NonceGapRepair } from '../transactions/nonce-gaps.ts';
import type { TransactionAttempt, TransactionAttemptStore } from '../transactions/attempts.ts';
import type { TransactionDetailView, TransactionSummaryView } from '../transactions/schemas.ts';
import type { WalletView } from '../wallets/schemas.ts';
import { toWalletView } from '../wallets/service.ts';
import { normalizeEvmHash } from './hashes.ts';
import { createConsoleNonceGaps } from './nonce-gaps.ts';
import type { WebhookAttemptRecord, WebhookDeliveryLog, WebhookDeliveryStatus } from '../webhooks/ports.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { DuplicateProjectError, type ConsoleStore } from './ports.ts';
import {
  apiKeyIdInput,
  broadcastsPerDayInput,
  createProjectApiKeyInput,
  createProjectInput,
  projectIdInput,
  transactionIdInput,
  transactionSearchInput,
  updateApiKeyInput,
  walletIdInput,
  walletSearchInput,
  webhookDeliveriesInput,
  webhookResendInput,
  webhookSetInput,
} from './schemas.ts';
import { createPartnerScope, type PartnerPrincipal } from './scope.ts';
import { createConsoleYield, type ConsoleYieldDeps } from './yield.ts';
import { recordFilters, withUsers } from './transaction-filters.ts';
import type { ChainDirectory } from '../chains/service.ts';

/** The signed-in staff member as the console use cases need them: partner scope, and role for writes. */
export type ConsolePrincipal = Pick<StaffPrincipal, 'partnerId' | 'partnerName' | 'role' | 'staffId'>;

/** Who made a change from the console, for the audit log. */
const actorOf = (principal: ConsolePrincipal) => ({ staffId: principal.staffId });

export interface ProjectView {
  projectId: string;
  name: string;
  createdAt: string;
  walletCount: number;
  apiKeyCount: number;
}

/** An API key as staff see it: never its hash, never its secret. */
export interface ApiKeyView {
  apiKeyId: string;
  projectId: string;
  keyPrefix: string;
  environment: string;
  plan: string;
  rateLimitPerMinute: number | null;
  ipAllowlist: string[];
  createdAt: string;
  revokedAt: string | null;
}

/** The REST wallet view plus where it lives and its claim state. */
export type ConsoleWalletView = WalletView & {
  projectId: string;
  custody: string;
  claimedAt: string | null;
  claimedByUserId: string | null;
};

export type ConsoleTransactionSummary = TransactionSummaryView & { projectId: string };
/** A row of the console's records list: the summary with its wallet's user (the user column). */
export type ConsoleTransactionRow = ConsoleTransactionSummary & { userIdentifier: string | null };
export type ConsoleTransactionView = TransactionDetailView & { projectId: string };

export interface DeliveryAttemptView {
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * One event of a record and one endpoint it went to. `status` is the delivery's, or `not_sent`
 * when no endpoint got the event: not dispatched yet (`dispatched: false`, a worker takes it within
 * a poll), or dispatched while no enabled endpoint subscribed to it.
 */
export interface TransactionDeliveryView {
  eventId: string;
  type: string;
  createdAt: string;
  /** The outbox dispatcher has fanned the event out to the endpoints subscribed at that moment. */
  dispatched: boolean;
  deliveryId: string | null;
  apiKeyId: string | null;
  url: string | null;
  status: WebhookDeliveryStatus | 'not_sent';
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  attempts: DeliveryAttemptView[];
}

export interface WebhookDeliveryView {
  deliveryId: string;
  eventId: string;
  type: string;
  createdAt: string;
  status: WebhookDeliveryStatus;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  attempts: DeliveryAttemptView[];
}

export interface Paged<T> {
  data: T[];
  nextCursor: string | null;
}

export interface ConsoleServiceDeps {
  store: ConsoleStore;
  apiKeyStore: Pick<ApiKeyStore, 'findById'>;
  apiKeys: ApiKeyService;
  webhooks: WebhookService;
  yield: ConsoleYieldDeps;
  /** Stranded wallets and their gap fillers (the wallet page's banner and its button). */
  nonceGaps: Pick<NonceGapRepair, 'findStranded' | 'repairWallet'>;
  audit: AuditStore;
  clock: Clock;
  /** The configured chains: the token filter's USDC addresses. */
  directory: ChainDirectory;
  /** Fee replacements of records with managed retry, so their `autoRetry` reads as REST's lookup. */
  attempts?: Pick<TransactionAttemptStore, 'forRecords'>;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toApiKeyView = (key: ApiKeyRecord): ApiKeyView => ({
  apiKeyId: key.id,
  projectId: key.projectId,
  keyPrefix: key.keyPrefix,
  environment: key.environment,
  plan: key.plan,
  rateLimitPerMinute: key.rateLimitPerMinute,
  ipAllowlist: key.ipAllowlist,
  createdAt: key.createdAt.toISOString(),
  revokedAt: iso(key.revokedAt),
});

export const toConsoleWalletView = (wallet: WalletRecord): ConsoleWalletView => ({
  ...toWalletView(wallet),
  projectId: wallet.projectId,
  custody: wallet.custody,
  claimedAt: iso(wallet.claimedAt),
  claimedByUserId: wallet.claimedByUserId,
});

const attemptView = (a: WebhookAttemptRecord): DeliveryAttemptView => ({
  attemptedAt: a.attemptedAt.toISOString(),
  statusCode: a.statusCode,
  latencyMs: a.latencyMs,
  error: a.error,
});

/** The edge cursor of a list item (the same keyset cursor the lists hand out). */
export const cursorOf = (item: { createdAt: string; id?: string; transactionId?: string }) =>
  encodeCursor({ createdAt: new Date(item.createdAt), id: (item.id ?? item.transactionId)! });

/** The console's page shape, `{data, nextCursor}`, over the shared keyset page. */
async function consolePage<R extends KeysetPosition, V>(
  input: { cursor?: string; limit: number },
  read: (after: KeysetPosition | undefined, take: number) => Promise<R[]>,
  view: (row: R) => V,
): Promise<Paged<V>> {
  const { data, pagination } = await keysetPage(input, read, view);
  return { data, nextCursor: pagination.cursor };
}

const deliveryCursor = {
  encode: (deliveryId: string) => Buffer.from(`delivery|${deliveryId}`, 'utf8').toString('base64url'),
  decode(cursor: string): string {
    const match = /^delivery\|(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!match) throw invalidRequest('Invalid request: cursor: not a cursor returned by this list');
    return match[1]!;
  },
};

/**
 * The console's use cases (tRPC for the console, GraphQL for support teams), scoped to the signed-in
 * staff member's partner. They reuse the REST use cases' views and the API key and webhook services;
 * partner scoping lives in `scope` only, and support staff may only read (`requireWriteAccess`).
 */
export function createConsoleService(deps: ConsoleServiceDeps) {
  const { store, clock } = deps;
  const scope = createPartnerScope({ store, apiKeys: deps.apiKeyStore });

  const writer = (principal: ConsolePrincipal) => requireWriteAccess(principal as StaffPrincipal);

  /** A revoked key has no webhook configuration to read or change: answered like a missing key (as the CLI does). */
  async function webhookScope(principal: PartnerPrincipal & Partial<Pick<ConsolePrincipal, 'staffId'>>, apiKeyId: string) {
    const key = await scope.apiKey(principal, apiKeyId);
    if (key.revokedAt) throw notFound('API key');
    return { apiKeyId: key.id, projectId: key.projectId, ...(principal.staffId ? { actor: { staffId: principal.staffId } } : {}) };
  }

  async function webhookDeliveriesOf(record: TransactionRecord): Promise<TransactionDeliveryView[]> {
    const events = await store.transactionEvents(record.projectId, record.id);
    return events.flatMap(({ event, deliveries }): TransactionDeliveryView[] => {
      const base = { eventId: event.id, type: event.type, createdAt: event.createdAt.toISOString(), dispatched: event.dispatchedAt !== null };
      if (deliveries.length === 0) {
        return [{ ...base, deliveryId: null, apiKeyId: null, url: null, status: 'not_sent' as const, deliveredAt: null, nextAttemptAt: null, attempts: [] }];
      }
      return deliveries.map((d: WebhookDeliveryLog) => ({
        ...base,
        deliveryId: d.deliveryId,
        apiKeyId: d.apiKeyId,
        url: d.url,
        status: d.status,
        deliveredAt: iso(d.deliveredAt),
        nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
        attempts: d.log.map(attemptView),
      }));
    });
  }

  async function searchRecords<V>(principal: PartnerPrincipal, input: z.input<typeof transactionSearchInput>, view: (record: TransactionRecord) => V) {
    const parsed = parseInput(transactionSearchInput, input);
    const project = parsed.projectId !== undefined ? await scope.project(principal, parsed.projectId) : undefined;
    const wallet = parsed.walletId !== undefined ? await scope.wallet(principal, parsed.walletId) : undefined;
    if (project && wallet && wallet.projectId !== project.id) throw notFound('Wallet');
    const hash = parsed.hash === undefined ? undefined : normalizeEvmHash(parsed.hash);
    const filters = await recordFilters({ store, directory: deps.directory }, principal.partnerId, project?.id, parsed);
    if (filters === null) return { data: [], nextCursor: null };
    return consolePage(
      parsed,
      (after, limit) =>
        store.listTransactions({ partnerId: principal.partnerId, projectId: project?.id, walletId: wallet?.id, status: parsed.status, intentKind: parsed.intentKind, hash, ...filters, after, limit }),
      view,
    );
  }

  const transactionSummary = (record: TransactionRecord): ConsoleTransactionSummary => ({ ...toTransactionSummary(record), projectId: record.projectId });

  /** The records as REST's lookup shows them (with their fee replacements), plus their project. */
  async function recordViews(records: TransactionRecord[]): Promise<ConsoleTransactionView[]> {
    const retried = records.filter((r) => typeof r.autoRetry === 'boolean').map((r) => r.id);
    const byRecord = deps.attempts && retried.length > 0 ? await deps.attempts.forRecords(retried) : new Map<string, TransactionAttempt[]>();
    const attemptsOf = (r: TransactionRecord) => (deps.attempts && typeof r.autoRetry === 'boolean' ? (byRecord.get(r.id) ?? []) : undefined);
    return records.map((r) => ({ ...toTransactionDetail(r, attemptsOf(r)), projectId: r.projectId }));
  }
  const recordView = async (record: TransactionRecord) => (await recordViews([record]))[0]!;

  return {
    scope,

    /** Yield operations and positions of the partner's wallets; cancellation for owners and developers. */
    yield: createConsoleYield({ ...deps.yield, scope, clock }),

    projects: {
      async list(principal: PartnerPrincipal): Promise<ProjectView[]> {
        return (await store.listProjects(principal.partnerId)).map((p) => ({
          projectId: p.id,
          name: p.name,
          createdAt: p.createdAt.toISOString(),
          walletCount: p.walletCount,
          apiKeyCount: p.apiKeyCount,
        }));
      },
      async create(principal: ConsolePrincipal, input: z.input<typeof createProjectInput>): Promise<ProjectView> {
        writer(principal);
        const { name } = parseInput(createProjectInput, input);
        try {
          const p = await store.createProject({ id: randomUUID(), partnerId: principal.partnerId, name });
          return { projectId: p.id, name: p.name, createdAt: p.createdAt.toISOString(), walletCount: 0, apiKeyCount: 0 };
        } catch (error) {
          if (error instanceof DuplicateProjectError) throw conflict('A project with this name exists');
          throw error;
        }
      },
    },

    apiKeys: {
      async list(principal: PartnerPrincipal, input: z.input<typeof projectIdInput>): Promise<ApiKeyView[]> {
        const project = await scope.project(principal, parseInput(projectIdInput, input).projectId);
        return (await store.listApiKeys(project.id)).map(toApiKeyView);
      },
      /** The secret is in this answer only. */
      async create(principal: ConsolePrincipal, input: z.input<typeof createProjectApiKeyInput>) {
        writer(principal);
        const parsed = parseInput(createProjectApiKeyInput, input);
        const project = await scope.project(principal, parsed.projectId);
        const issued = await deps.apiKeys.create({
          partner: principal.partnerName,
          project: project.name,
          environment: parsed.environment,
          plan: parsed.plan,
          rateLimitPerMinute: parsed.rateLimitPerMinute,
          ipAllowlist: parsed.ipAllowlist,
        }, actorOf(principal));
        if (issued.projectId !== project.id) throw new Error('API key created outside the requested project');
        return { apiKey: issued.apiKey, apiKeyId: issued.apiKeyId, projectId: issued.projectId };
      },
      /** A new secret (shown once); the old one stops working at once. */
      async rotate(principal: ConsolePrincipal, input: z.input<typeof apiKeyIdInput>) {
        writer(principal);
        const key = await scope.apiKey(principal, parseInput(apiKeyIdInput, input).apiKeyId);
        const issued = await deps.apiKeys.rotate(key.id, actorOf(principal));
        return { apiKey: issued.apiKey, apiKeyId: issued.apiKeyId };
      },
      async revoke(principal: ConsolePrincipal, input: z.input<typeof apiKeyIdInput>) {
        writer(principal);
        const key = await scope.apiKey(principal, parseInput(apiKeyIdInput, input).apiKeyId);
        return deps.apiKeys.revoke(key.id, actorOf(principal));
      },
      async update(principal: ConsolePrincipal, input: z.input<typeof updateApiKeyInput>): Promise<ApiKeyView> {
        writer(principal);
        const { apiKeyId, ...change } = parseInput(updateApiKeyInput, input);
        const key = await scope.apiKey(principal, apiKeyId);
        return toApiKeyView(await deps.apiKeys.update(key.id, change, actorOf(principal)));
      },
    },

    wallets: {
      async get(principal: PartnerPrincipal, input: z.input<typeof walletIdInput>): Promise<ConsoleWalletView> {
        return toConsoleWalletView(await scope.wallet(principal, parseInput(walletIdInput, input).walletId));
      },
      /** One project's wallets (`projectId`), or every project's of the partner. */
      async list(principal: PartnerPrincipal, input: z.input<typeof walletSearchInput>): Promise<Paged<ConsoleWalletView>> {
        const parsed = parseInput(walletSearchInput, input);
        const project = parsed.projectId !== undefined ? await scope.project(principal, parsed.projectId) : undefined;
        return consolePage(
          parsed,
          (after, limit) =>
            store.listWallets({
              partnerId: principal.partnerId,
              projectId: project?.id,
              type: parsed.type,
              status: parsed.status,
              claimed: parsed.claimed,
              search: parsed.search,
              address: parsed.address,
              userIdentifier: parsed.userIdentifier,
              after,
              limit,
            }),
          toConsoleWalletView,
        );
      },
      /** `nonceGaps`: the chains the wallet is stranded on; `fillNonceGaps`: their gap fillers now (owners and developers). */
      ...createConsoleNonceGaps({ scope, repair: deps.nonceGaps, audit: deps.audit }),
    },

    transactions: {
      /** The record as REST's lookup shows it, plus its project and its webhook deliveries. */
      async get(principal: PartnerPrincipal, input: z.input<typeof transactionIdInput>): Promise<ConsoleTransactionView & { webhookDeliveries: TransactionDeliveryView[] }> {
        const record = await scope.transaction(principal, parseInput(transactionIdInput, input).transactionId);
        return { ...(await recordView(record)), webhookDeliveries: await webhookDeliveriesOf(record) };
      },
      /** The record without its deliveries (GraphQL resolves those only when asked). */
      async record(principal: PartnerPrincipal, transactionId: string): Promise<ConsoleTransactionView> {
        return recordView(await scope.transaction(principal, transactionId));
      },
      async webhookDeliveries(principal: PartnerPrincipal, transactionId: string): Promise<TransactionDeliveryView[]> {
        return webhookDeliveriesOf(await scope.transaction(principal, transactionId));
      },
      /** Newest record with this hash across the partner's projects. */
      async byHash(principal: PartnerPrincipal, hash: string): Promise<ConsoleTransactionView> {
        const parsed = parseInput(transactionSearchInput, { hash, limit: 1 });
        const [record] = await store.listTransactions({ partnerId: principal.partnerId, hash: normalizeEvmHash(parsed.hash!), limit: 1 });
        if (!record) throw notFound('Transaction');
        return recordView(record);
      },
      /** The list as REST lists records (summary fields), across the partner's projects or of one. */
      async list(principal: PartnerPrincipal, input: z.input<typeof transactionSearchInput>): Promise<Paged<ConsoleTransactionRow>> {
        const page = await searchRecords(principal, input, transactionSummary);
        return { ...page, data: await withUsers(store, page.data) };
      },
      /** The same list with every lookup field (GraphQL nodes are full records). */
      async search(principal: PartnerPrincipal, input: z.input<typeof transactionSearchInput>): Promise<Paged<ConsoleTransactionView>> {
        const page = await searchRecords(principal, input, (record) => record);
        return { ...page, data: await recordViews(page.data) };
      },
    },

    webhooks: {
      eventTypes: deps.webhooks.eventTypes,
      /** The key's configuration without its secret, or null when none is set. */
      async get(principal: PartnerPrincipal, input: z.input<typeof apiKeyIdInput>) {
        const target = await webhookScope(principal, parseInput(apiKeyIdInput, input).apiKeyId);
        try {
          return await deps.webhooks.get(target);
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        }
      },
      /** The secret is in the answer only when this call created the configuration. */
      async set(principal: ConsolePrincipal, input: z.input<typeof webhookSetInput>) {
        writer(principal);
        const { apiKeyId, ...config } = parseInput(webhookSetInput, input);
        return deps.webhooks.set(await webhookScope(principal, apiKeyId), config);
      },
      async rotateSecret(principal: ConsolePrincipal, input: z.input<typeof apiKeyIdInput>) {
        writer(principal);
        const rotated = await deps.webhooks.rotateSecret(await webhookScope(principal, parseInput(apiKeyIdInput, input).apiKeyId));
        return { secret: rotated.secret, previousSecretExpiresAt: rotated.previousSecretExpiresAt };
      },
      async testPing(principal: ConsolePrincipal, input: z.input<typeof apiKeyIdInput>) {
        writer(principal);
        return deps.webhooks.testPing(await webhookScope(principal, parseInput(apiKeyIdInput, input).apiKeyId));
      },
      /** The endpoint's deliveries, newest first, with every attempt. Empty without a configuration. */
      async deliveries(principal: PartnerPrincipal, input: z.input<typeof webhookDeliveriesInput>): Promise<Paged<WebhookDeliveryView>> {
        const parsed = parseInput(webhookDeliveriesInput, input);
        const target = await webhookScope(principal, parsed.apiKeyId);
        const before = parsed.cursor ? deliveryCursor.decode(parsed.cursor) : undefined;
        let endpointId: string;
        try {
          endpointId = (await deps.webhooks.get(target)).id;
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) return { data: [], nextCursor: null };
          throw error;
        }
        const rows = await store.endpointDeliveries(endpointId, before, parsed.limit + 1);
        const items = rows.slice(0, parsed.limit);
        return {
          data: items.map((d) => ({
            deliveryId: d.deliveryId,
            eventId: d.eventId,
            type: d.type,
            createdAt: d.eventCreatedAt.toISOString(),
            status: d.status,
            deliveredAt: iso(d.deliveredAt),
            nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
            attempts: d.log.map(attemptView),
          })),
          nextCursor: rows.length > parsed.limit && items.length > 0 ? deliveryCursor.encode(items.at(-1)!.deliveryId) : null,
        };
      },
      /** A fresh delivery round of one event, or of every event of a transaction hash, to this key's endpoint. */
      async resend(principal: ConsolePrincipal, input: z.input<typeof webhookResendInput>) {
        writer(principal);
        const parsed = parseInput(webhookResendInput, input);
        const target = await webhookScope(principal, parsed.apiKeyId);
        return deps.webhooks.resend(target, parsed.eventId !== undefined ? { eventId: parsed.eventId } : { txHash: parsed.txHash! });
      },
    },

    overview: {
      /** Records created per UTC day and status over the last `days` days (today included). */
      async broadcastsPerDay(principal: PartnerPrincipal, input: z.input<typeof broadcastsPerDayInput>) {
        const parsed = parseInput(broadcastsPerDayInput, input);
        const project = await scope.project(principal, parsed.projectId);
        const today = new Date(clock.now());
        today.setUTCHours(0, 0, 0, 0);
        const since = new Date(today.getTime() - (parsed.days - 1) * 24 * 60 * 60 * 1000);
        return store.broadcastsPerDay(project.id, since);
      },
    },
  };
}

export type ConsoleService = ReturnType<typeof createConsoleService>;
