/**
 * Policy storage use cases: apply (create or next version), deactivate, and the reads the REST
 * routes, the console, the CLI and the evaluation slice share. Every use case takes a scope
 * (project + environment + actor) made by one of the scope helpers below, so transports stay thin.
 */
import { z } from 'zod';
import { conflict, notFound } from '../errors.ts';
import type { AuditEntry, Environment } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import type { PartnerPrincipal, PartnerScope } from '../console/scope.ts';
import type { WalletType } from '../wallets/addresses.ts';
import { parsePolicyDocument, policyDocumentError, type PolicyDocument } from './document.ts';
import type { PolicyActor, PolicyLocation, PolicyStatus, PolicyStore, PolicyVersionRecord } from './ports.ts';

/** Whose policies, and who is acting: project and environment, the actor, and the request for the audit row. */
export interface PolicyScope extends PolicyLocation {
  actor: PolicyActor;
  requestId?: string | null;
}

/** A partner's API key (or the staff member the console acts for): its own project and environment. */
export const policyScopeOfCaller = (caller: Caller): PolicyScope => ({
  projectId: caller.projectId,
  environment: caller.environment,
  actor: caller.actor ?? { type: 'api_key', id: caller.apiKeyId },
  requestId: caller.requestId,
});

const environmentSchema = z.enum(['development', 'production'], { error: 'expected "development" or "production"' });

/** A policy version as partners and staff see it. */
export interface PolicyView {
  policyId: string;
  /** Decimal string, as in the document (`"1"`, `"2"`, ...). */
  version: string;
  status: PolicyStatus;
  environment: Environment;
  walletType: WalletType;
  effectiveFrom: string | null;
  effectiveUntil: string | null;
  createdAt: string;
  createdBy: PolicyActor;
  deactivatedAt: string | null;
  deactivatedBy: PolicyActor | null;
  /** The version that replaced this one; null when it was deactivated or is active. */
  replacedBy: string | null;
  /** The stored document; its `version` is the number the service gave this version. */
  definition: PolicyDocument;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toPolicyView(record: PolicyVersionRecord): PolicyView {
  return {
    policyId: record.policyId,
    version: String(record.version),
    status: record.status,
    environment: record.environment,
    walletType: record.walletType,
    effectiveFrom: iso(record.effectiveFrom),
    effectiveUntil: iso(record.effectiveUntil),
    createdAt: record.createdAt.toISOString(),
    createdBy: record.createdBy,
    deactivatedAt: iso(record.deactivatedAt),
    deactivatedBy: record.deactivatedBy,
    replacedBy: record.replacedBy === null ? null : String(record.replacedBy),
    definition: record.document,
  };
}

const networkSet = (doc: PolicyDocument) => (doc.selector.chainId ? [...new Set(doc.selector.chainId.map((c) => c.toLowerCase()))].sort().join(',') : '*');

/**
 * Spec rule 6: the wallet type and the network set are the selector, and only an edit of the same
 * selector makes a next version (Para: another selector needs another id). Wallet and API key sets
 * may change between versions.
 */
function checkSameSelector(previous: PolicyDocument, next: PolicyDocument): void {
  if (previous.selector.walletType === next.selector.walletType && networkSet(previous) === networkSet(next)) return;
  const was = `${previous.selector.walletType} on ${previous.selector.chainId?.join(', ') ?? 'every network'}`;
  throw conflict(`Policy ${next.id} selects ${was}; a different wallet type or network set needs a new policy id`, {
    details: [{ path: 'selector', message: `expected the selector of version ${previous.version}: ${was}` }],
  });
}

export interface PolicyServiceDeps {
  store: PolicyStore;
  clock: Clock;
  /** The console's partner check (staff scopes only). */
  partnerScope?: Pick<PartnerScope, 'project'>;
}

const notFoundPolicy = () => notFound('Policy');
const location = (scope: PolicyLocation): PolicyLocation => ({ projectId: scope.projectId, environment: scope.environment });

export function createPolicyService({ store, clock, partnerScope }: PolicyServiceDeps) {
  const auditEntry = (scope: PolicyScope, action: string, record: PolicyVersionRecord, extra: Record<string, unknown> = {}): AuditEntry => ({
    projectId: scope.projectId,
    apiKeyId: scope.actor.type === 'api_key' ? scope.actor.id : null,
    walletId: null,
    requestId: scope.requestId ?? null,
    action,
    details: { policyId: record.policyId, version: record.version, environment: record.environment, walletType: record.walletType, actor: scope.actor, ...extra },
  });

  return {
    /**
     * A console staff member's scope: the project must belong to their partner (else the same 404
     * as a missing project) and the environment is chosen explicitly.
     */
    async staffScope(principal: PartnerPrincipal & { staffId: string }, projectId: string, environment: unknown): Promise<PolicyScope> {
      if (!partnerScope) throw new Error('createPolicyService: staff scopes need partnerScope');
      const project = await partnerScope.project(principal, projectId);
      return { projectId: project.id, environment: parseInput(environmentSchema, environment), actor: { type: 'staff', id: principal.staffId } };
    },

    /**
     * The operator CLI's scope: any existing project (else 404 `Project not found`, also for an id
     * that is no uuid), environment chosen explicitly.
     */
    async operatorScope(projectId: string, environment: unknown): Promise<PolicyScope> {
      const env = parseInput(environmentSchema, environment);
      if (!z.uuid().safeParse(projectId).success || !(await store.projectExists(projectId))) throw notFound('Project');
      return { projectId, environment: env, actor: { type: 'operator', id: null } };
    },

    /**
     * Stores the document as the policy's first version, or as the next version when the id exists
     * (the active one becomes inactive); the new version is active. `require_approval` rules are
     * accepted: they open approval cases where the permissions v2 extension is enabled and deny
     * (`approval-not-available`) elsewhere. The document's own `version` is replaced by the number
     * given here, so concurrent applies never collide.
     */
    async apply(scope: PolicyScope, input: unknown): Promise<PolicyView> {
      const parsed = parsePolicyDocument(input);
      if (!parsed.ok) throw policyDocumentError(parsed.problems);
      const doc = parsed.document;
      const record = await store.apply(
        location(scope),
        {
          policyId: doc.id,
          walletType: doc.selector.walletType,
          document: doc,
          effectiveFrom: doc.effectiveFrom ? new Date(doc.effectiveFrom) : null,
          effectiveUntil: doc.effectiveUntil ? new Date(doc.effectiveUntil) : null,
          createdAt: clock.now(),
          createdBy: scope.actor,
        },
        (version) => auditEntry(scope, 'policy.apply', version),
        (previous) => checkSameSelector(previous.document, doc),
      );
      return toPolicyView(record);
    },

    /** Makes the active version inactive (no new version, no delete); 404 when none is active. */
    async deactivate(scope: PolicyScope, policyId: string): Promise<PolicyView> {
      const record = await store.deactivate(location(scope), policyId, { at: clock.now(), by: scope.actor }, (version) =>
        auditEntry(scope, 'policy.deactivate', version),
      );
      if (!record) throw notFoundPolicy();
      return toPolicyView(record);
    },

    /** Active policies whose effective window holds now (GET /v1/permissions-v2/policies). */
    async list(scope: PolicyLocation): Promise<{ policies: PolicyView[] }> {
      const records = await store.listActive(location(scope), clock.now());
      return { policies: records.map(toPolicyView) };
    },

    /** The active version of one policy, also before or after its window; 404 when none is active. */
    async get(scope: PolicyLocation, policyId: string): Promise<PolicyView> {
      const record = await store.findActive(location(scope), policyId);
      if (!record) throw notFoundPolicy();
      return toPolicyView(record);
    },

    /** Every version, newest first (each was active once); 404 when the policy does not exist. */
    async versions(scope: PolicyLocation, policyId: string): Promise<{ versions: PolicyView[] }> {
      const records = await store.listVersions(location(scope), policyId);
      if (records.length === 0) throw notFoundPolicy();
      return { versions: records.map(toPolicyView) };
    },

    /** For evaluation: active versions of the wallet type whose window holds now. */
    activePoliciesFor(projectId: string, environment: Environment, walletType: WalletType): Promise<PolicyVersionRecord[]> {
      return store.listActive({ projectId, environment }, clock.now(), walletType);
    },
  };
}

export type PolicyService = ReturnType<typeof createPolicyService>;
