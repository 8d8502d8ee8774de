import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { KekProvider } from '../custody/types.ts';
import { invalidRequest, notFound } from '../errors.ts';
import type { AuditActor } from '../api-keys/service.ts';
import type { ApiKeyStore, AuditStore } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import { checkWebhookUrl, resolveHostWithDns, type ResolveHost } from './addresses.ts';
import { WEBHOOK_SECRET_OVERLAP_MS, type PingResult } from './delivery.ts';
import { WEBHOOK_EVENT_TYPES, isWebhookEventType } from './event-types.ts';
import { resendInput, webhookConfigInput } from './schemas.ts';
import { WebhookEndpointExistsError, type WebhookDeliveryLog, type WebhookEndpointRecord, type WebhookStore } from './ports.ts';
import { generateWebhookSecret, sealWebhookSecret } from './secrets.ts';

/** Whose webhook configuration: an API key of a project (a partner request's Caller fits). */
export interface WebhookScope {
  apiKeyId: string;
  projectId: string;
  /** A console staff member making the change (kept in the audit row's details). */
  actor?: AuditActor;
}

/** The configuration as the partner sees it; the secret appears only when created or rotated. */
export interface WebhookConfigView {
  id: string;
  apiKeyId: string;
  url: string;
  enabled: boolean;
  eventTypes: string[];
  /** First failed attempt since the last successful one; null while healthy. */
  failingSince: string | null;
  /** Set when the service disabled the endpoint (5 days of failures), with the reason. */
  disabledAt: string | null;
  disabledReason: string | null;
  /** Until when the previous secret still signs deliveries (after a rotation). */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

export interface WebhookServiceDeps {
  store: WebhookStore;
  apiKeys: Pick<ApiKeyStore, 'findById'>;
  audit?: AuditStore;
  keks: KekProvider;
  clock: Clock;
  /** Sends a test.ping now (the delivery engine's `ping`). */
  ping: (endpoint: WebhookEndpointRecord) => Promise<PingResult>;
  /** false in production: URLs resolving to loopback, private or link-local addresses are refused. */
  allowPrivateAddresses: boolean;
  resolveHost?: ResolveHost;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toWebhookConfigView(endpoint: WebhookEndpointRecord, now: Date): WebhookConfigView {
  const overlap = endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now.getTime() ? endpoint.previousSecretExpiresAt : null;
  return {
    id: endpoint.id,
    apiKeyId: endpoint.apiKeyId,
    url: endpoint.url,
    enabled: endpoint.enabled,
    eventTypes: endpoint.eventTypes,
    failingSince: iso(endpoint.failingSince),
    disabledAt: iso(endpoint.disabledAt),
    disabledReason: endpoint.disabledReason,
    previousSecretExpiresAt: iso(overlap),
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

function checkEventTypes(types: string[], enabled: boolean): string[] {
  const unknown = types.filter((t) => !isWebhookEventType(t));
  if (unknown.length > 0) {
    throw invalidRequest(`Invalid request: eventTypes: unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}`, {
      knownEventTypes: WEBHOOK_EVENT_TYPES,
    });
  }
  if (enabled && types.length === 0) throw invalidRequest('Invalid request: eventTypes: at least one event type must be subscribed when enabled');
  return [...new Set(types)];
}

const logView = (entry: WebhookDeliveryLog) => ({
  deliveryId: entry.deliveryId,
  eventId: entry.eventId,
  apiKeyId: entry.apiKeyId,
  url: entry.url,
  status: entry.status,
  attempts: entry.attempts,
  nextAttemptAt: iso(entry.nextAttemptAt),
  lastStatusCode: entry.lastStatusCode,
  lastError: entry.lastError,
  deliveredAt: iso(entry.deliveredAt),
  createdAt: entry.createdAt.toISOString(),
  log: entry.log.map((a) => ({ attemptedAt: a.attemptedAt.toISOString(), statusCode: a.statusCode, latencyMs: a.latencyMs, error: a.error })),
});

/**
 * Webhook configuration per API key (one endpoint each), test pings, the delivery log and manual
 * resends. Transport-neutral: the CLI, tRPC and REST call the same functions with a scope.
 */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { store, keks, clock } = deps;
  const resolveHost = deps.resolveHost ?? resolveHostWithDns;

  async function load(scope: WebhookScope): Promise<WebhookEndpointRecord> {
    const endpoint = await store.findByApiKey(scope.apiKeyId);
    if (!endpoint || endpoint.projectId !== scope.projectId) throw notFound('Webhook configuration');
    return endpoint;
  }

  async function audit(scope: WebhookScope, action: string, details: Record<string, unknown>) {
    await deps.audit?.append({
      projectId: scope.projectId,
      apiKeyId: scope.apiKeyId,
      walletId: null,
      requestId: null,
      action,
      details: scope.actor ? { ...details, actor: scope.actor } : details,
    });
  }

  /** A re-enabled endpoint starts healthy and gets its pending deliveries at once. */
  async function reenable(endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord> {
    const updated = await store.update(endpoint.id, { enabled: true, disabledAt: null, disabledReason: null, failingSince: null });
    await store.rearmPending(endpoint.id, clock.now());
    return updated;
  }

  return {
    eventTypes: WEBHOOK_EVENT_TYPES,

    /** Operator tools (CLI): the scope of an API key by its id. */
    async scopeForKey(apiKeyId: string): Promise<WebhookScope> {
      if (!z.uuid().safeParse(apiKeyId).success) throw notFound('API key');
      const key = await deps.apiKeys.findById(apiKeyId);
      if (!key || key.revokedAt) throw notFound('API key');
      return { apiKeyId: key.id, projectId: key.projectId };
    },

    async get(scope: WebhookScope): Promise<WebhookConfigView> {
      return toWebhookConfigView(await load(scope), clock.now());
    },

    /**
     * Creates or replaces the configuration. HTTPS only; in production the host must resolve to
     * public addresses only; at least one known event type when enabled. The secret is returned
     * when the endpoint is created, never afterwards (rotate for a new one).
     */
    async set(scope: WebhookScope, input: z.input<typeof webhookConfigInput>): Promise<WebhookConfigView> {
      const parsed = parseInput(webhookConfigInput, input);
      const eventTypes = checkEventTypes(parsed.eventTypes, parsed.enabled);
      const url = (await checkWebhookUrl(parsed.url, { allowPrivateAddresses: deps.allowPrivateAddresses, resolveHost })).toString();
      const existing = await store.findByApiKey(scope.apiKeyId);
      if (existing && existing.projectId !== scope.projectId) throw notFound('API key');
      if (!existing) {
        const id = randomUUID();
        const secret = generateWebhookSecret();
        const sealed = sealWebhookSecret(keks, id, secret);
        try {
          const created = await store.create({
            id,
            apiKeyId: scope.apiKeyId,
            projectId: scope.projectId,
            url,
            enabled: parsed.enabled,
            eventTypes,
            secretKekId: sealed.kekId,
            secret: sealed.sealed,
            previousSecretKekId: null,
            previousSecret: null,
            previousSecretExpiresAt: null,
          });
          await audit(scope, 'webhook.create', { url, eventTypes, enabled: parsed.enabled });
          return { ...toWebhookConfigView(created, clock.now()), secret };
        } catch (error) {
          if (!(error instanceof WebhookEndpointExistsError)) throw error;
          // Another request created it meanwhile: update that one (its secret was shown there).
        }
      }
      const current = existing ?? (await load(scope));
      let updated = await store.update(current.id, { url, eventTypes, enabled: parsed.enabled });
      if (parsed.enabled && (!current.enabled || current.disabledAt)) updated = await reenable(updated);
      await audit(scope, 'webhook.update', { url, eventTypes, enabled: parsed.enabled });
      return toWebhookConfigView(updated, clock.now());
    },

    /** Enables the endpoint (also after the service disabled it); pending deliveries are sent again at once. */
    async enable(scope: WebhookScope): Promise<WebhookConfigView> {
      const endpoint = await load(scope);
      checkEventTypes(endpoint.eventTypes, true);
      const updated = await reenable(endpoint);
      await audit(scope, 'webhook.enable', {});
      return toWebhookConfigView(updated, clock.now());
    },

    /** Stops deliveries; pending ones wait until the endpoint is enabled again. */
    async disable(scope: WebhookScope): Promise<WebhookConfigView> {
      const endpoint = await load(scope);
      const updated = await store.update(endpoint.id, { enabled: false });
      await audit(scope, 'webhook.disable', {});
      return toWebhookConfigView(updated, clock.now());
    },

    /**
     * A new secret, returned once. The previous one keeps signing deliveries (a second signature)
     * for 24 hours; a secret older than that is dropped.
     */
    async rotateSecret(scope: WebhookScope): Promise<WebhookConfigView & { secret: string }> {
      const endpoint = await load(scope);
      const secret = generateWebhookSecret();
      const sealed = sealWebhookSecret(keks, endpoint.id, secret);
      const updated = await store.update(endpoint.id, {
        secretKekId: sealed.kekId,
        secret: sealed.sealed,
        previousSecretKekId: endpoint.secretKekId,
        previousSecret: endpoint.secret,
        previousSecretExpiresAt: new Date(clock.now().getTime() + WEBHOOK_SECRET_OVERLAP_MS),
      });
      await audit(scope, 'webhook.rotate_secret', {});
      return { ...toWebhookConfigView(updated, clock.now()), secret };
    },

    /** Sends `test.ping` now and reports the endpoint's answer. */
    async testPing(scope: WebhookScope): Promise<PingResult> {
      return deps.ping(await load(scope));
    },

    /**
     * A fresh attempt (same `webhook-id`) of an event, or of every event of a transaction hash, to
     * the endpoints that had it or subscribe to it. With a scope: only that API key's endpoint and
     * only its project's events.
     */
    async resend(scope: WebhookScope | null, input: z.input<typeof resendInput>) {
      const parsed = parseInput(resendInput, input);
      let eventIds: string[];
      if ('eventId' in parsed) {
        const event = await store.findEvent(parsed.eventId);
        if (!event || (scope && event.projectId !== scope.projectId)) throw notFound('Event');
        eventIds = [event.id];
      } else {
        const events = await store.findEventsByTxHash(parsed.txHash, scope?.projectId ?? null);
        if (events.length === 0) throw notFound('Event');
        eventIds = events.map((e) => e.id);
      }
      const armed = await store.resend(eventIds, scope?.apiKeyId ?? null, clock.now());
      return { eventIds, deliveries: armed.map((d) => ({ deliveryId: d.deliveryId, eventId: d.eventId, endpointId: d.endpointId })) };
    },

    /** Every delivery of the event (to this scope's endpoint, or to all) with its attempts. */
    async deliveryLog(scope: WebhookScope | null, eventId: string) {
      const event = await store.findEvent(eventId);
      if (!event || (scope && event.projectId !== scope.projectId)) throw notFound('Event');
      const deliveries = await store.deliveryLog(eventId, scope?.apiKeyId ?? null);
      return { eventId: event.id, type: event.type, createdAt: event.createdAt.toISOString(), deliveries: deliveries.map(logView) };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
