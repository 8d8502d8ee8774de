/**
 * Delegation policies on user-owned wallets (permissions v2 "Requests"): the user's consent to a
 * policy for one of their claimed wallets, and the values they save for its adjustable
 * parameters. Partners only read these (REST); the user's side writes them (the users CLI,
 * simulated locally like claiming). Everything is per project and environment, like policies.
 */
import type { AuditEntry, Environment, WalletRecord } from '../ports.ts';
import { notFound } from '../errors.ts';
import type { PermissionsExtension } from '../authorization-scopes/extension.ts';
import { decodeRevisionCursor, encodeRevisionCursor, staleRevision } from '../authorization-scopes/revisions.ts';
import type { PolicyLocation, PolicyStore, PolicyVersionRecord } from '../policies/ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { fieldError, parseInput, uuidSchema } from '../shared/zod.ts';
import { selectsWallet } from './enforcement.ts';
import { checkParameterValue, parameterDeclarations, parameterValueFits } from './parameters.ts';
import type { ConsentRecord, DelegationKey, DelegationStore } from './ports.ts';
import { consentInput, delegationWalletQuery, setParameterInput, userParameterHistoryQuery, userParameterListQuery } from './schemas.ts';

export interface DelegationServiceDeps {
  store: DelegationStore;
  policies: Pick<PolicyStore, 'findActive' | 'listActive'>;
  extension: Pick<PermissionsExtension, 'requireEnabled'>;
  clock: Clock;
  findWallet(walletId: string): Promise<WalletRecord | null>;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

const policySummary = (record: PolicyVersionRecord) => ({
  policyId: record.policyId,
  version: String(record.version),
  description: record.document.metadata.description ?? null,
  walletType: record.walletType,
});

function consentView(walletId: string, policy: PolicyVersionRecord, record: ConsentRecord | null) {
  const status = !record ? 'pending' : record.status === 'revoked' ? 'revoked' : record.policyVersion === policy.version ? 'standing' : 'outdated';
  return {
    walletId,
    status,
    inForce: status === 'standing',
    consentedVersion: record ? String(record.policyVersion) : null,
    consentedAt: iso(record?.consentedAt),
    revokedAt: iso(record?.revokedAt),
    updatedAt: iso(record?.updatedAt),
  };
}

const consentEntry = (walletId: string, policy: PolicyVersionRecord, record: ConsentRecord | null) => ({
  policy: { ...policySummary(policy), definition: policy.document as unknown as Record<string, unknown> },
  consent: consentView(walletId, policy, record),
});

export function createDelegationService({ store, policies, extension, clock, findWallet }: DelegationServiceDeps) {
  /** The user of the project; another project's user is the same 404 as a missing one. */
  async function requireUser(projectId: string | null, userId: string) {
    const user = uuidSchema.safeParse(userId).success ? await store.findUser(userId) : null;
    if (!user || (projectId !== null && user.projectId !== projectId)) throw notFound('User');
    return user;
  }

  /** A wallet the user claimed; any other wallet (missing, foreign, app-owned, another user's) is 404. */
  async function userWallet(projectId: string, userId: string, walletId: string): Promise<WalletRecord> {
    const wallet = uuidSchema.safeParse(walletId).success ? await findWallet(walletId) : null;
    if (!wallet || wallet.projectId !== projectId || wallet.claimedByUserId !== userId) throw notFound('Wallet');
    return wallet;
  }

  /** The active delegation policy `policyId` that applies to the wallet now. */
  async function delegationPolicy(at: PolicyLocation, policyId: string, wallet: WalletRecord): Promise<PolicyVersionRecord> {
    const record = await policies.findActive(at, policyId);
    const now = clock.now();
    const inWindow = record && (!record.effectiveFrom || record.effectiveFrom <= now) && (!record.effectiveUntil || record.effectiveUntil > now);
    if (!record || !inWindow) throw notFound('Policy');
    if (record.document.metadata.productMode !== 'delegation') {
      throw fieldError('policyId', `policy ${policyId} is a guardrail policy; consents and parameters belong to delegation policies`);
    }
    if (!selectsWallet(record, wallet)) throw fieldError('policyId', `policy ${policyId} does not apply to wallet ${wallet.id} (its selector takes other wallets)`);
    return record;
  }

  async function applyingPolicies(at: PolicyLocation, wallet: WalletRecord) {
    return (await policies.listActive(at, clock.now(), wallet.type)).filter((p) => selectsWallet(p, wallet));
  }

  const location = (caller: Pick<Caller, 'projectId' | 'environment'>): PolicyLocation => ({ projectId: caller.projectId, environment: caller.environment });

  function parametersView(key: DelegationKey, policy: PolicyVersionRecord, saved: { revision: number; values: Record<string, string>; updatedAt: Date | null } | null) {
    const values = saved?.values ?? {};
    return {
      ...key,
      policyVersion: String(policy.version),
      revision: saved?.revision ?? 0,
      updatedAt: iso(saved?.updatedAt),
      values,
      parameters: parameterDeclarations(policy.document).map((d) => {
        const value = values[d.id] ?? null;
        return { ...d, value, effective: value !== null && parameterValueFits(d, value) ? value : d.default };
      }),
    };
  }

  /** The CLI names no environment unless asked: the one where the policy is active. */
  async function userLocation(projectId: string, policyId: string, environment: Environment | undefined): Promise<PolicyLocation> {
    if (environment) return { projectId, environment };
    const found: Environment[] = [];
    for (const env of ['development', 'production'] as const) if (await policies.findActive({ projectId, environment: env }, policyId)) found.push(env);
    if (found.length === 0) throw notFound('Policy');
    if (found.length > 1) throw fieldError('environment', `policy ${policyId} is active in development and production; name one (--env)`);
    return { projectId, environment: found[0]! };
  }

  /** The user side's subject: the user, their wallet, the environment and the delegation policy. */
  async function userSubject(input: { userId: string; walletId: string; policyId: string; environment?: Environment }) {
    const user = await requireUser(null, input.userId);
    const wallet = await userWallet(user.projectId, user.id, input.walletId);
    const at = await userLocation(user.projectId, input.policyId, input.environment);
    const policy = await delegationPolicy(at, input.policyId, wallet);
    const key: DelegationKey = { userId: user.id, walletId: wallet.id, policyId: policy.policyId };
    return { at, wallet, policy, key };
  }

  const audit = (at: PolicyLocation, key: DelegationKey, action: string, details: Record<string, unknown>): AuditEntry => ({
    projectId: at.projectId,
    apiKeyId: null,
    walletId: key.walletId,
    requestId: null,
    action,
    details: { environment: at.environment, actor: { type: 'user', id: key.userId }, policyId: key.policyId, ...details },
  });

  /** The partner's view: the user was checked first (404 before any query problem), then the wallet. */
  const partnerSubject = (caller: Caller, userId: string, walletId: string) => userWallet(caller.projectId, userId, walletId);

  return {
    /** GET .../delegation-consents?walletId=: every active delegation policy applying to the user's wallet, with its consent state. */
    async listConsents(caller: Caller, userId: string, query: unknown) {
      await requireUser(caller.projectId, userId);
      const { walletId } = parseInput(delegationWalletQuery, query);
      const wallet = await partnerSubject(caller, userId, walletId);
      const applying = await applyingPolicies(location(caller), wallet);
      if (applying.length === 0) return { requests: [] };
      const consents = new Map((await store.listConsents(location(caller), userId, wallet.id)).map((c) => [c.policyId, c]));
      return { requests: applying.map((policy) => consentEntry(wallet.id, policy, consents.get(policy.policyId) ?? null)) };
    },

    /** GET .../delegation-consents/{policyId}?walletId=: the current consent state of one policy. */
    async getConsent(caller: Caller, userId: string, policyId: string, query: unknown) {
      await requireUser(caller.projectId, userId);
      const { walletId } = parseInput(delegationWalletQuery, query);
      const wallet = await partnerSubject(caller, userId, walletId);
      const policy = await delegationPolicy(location(caller), policyId, wallet);
      return consentEntry(wallet.id, policy, await store.findConsent(location(caller), { userId, walletId: wallet.id, policyId: policy.policyId }));
    },

    /** GET .../user-parameters[?walletId=]: delegation policies with parameters on the user's wallets; gated by the extension. */
    async listParameterPolicies(caller: Caller, userId: string, query: unknown) {
      await extension.requireEnabled(caller);
      await requireUser(caller.projectId, userId);
      const input = parseInput(userParameterListQuery, query);
      const wallets = input.walletId ? [await partnerSubject(caller, userId, input.walletId)] : await store.claimedWallets(caller.projectId, userId);
      const out = [];
      for (const wallet of wallets) {
        for (const policy of await applyingPolicies(location(caller), wallet)) {
          const parameters = parameterDeclarations(policy.document);
          if (parameters.length === 0) continue;
          const saved = await store.findParameters(location(caller), { userId, walletId: wallet.id, policyId: policy.policyId });
          out.push({ policy: policySummary(policy), walletId: wallet.id, revision: saved?.revision ?? 0, parameters });
        }
      }
      return { policies: out };
    },

    /** GET .../user-parameters/{policyId}?walletId=: declarations, saved values, current revision; gated by the extension. */
    async getParameters(caller: Caller, userId: string, policyId: string, query: unknown) {
      await extension.requireEnabled(caller);
      await requireUser(caller.projectId, userId);
      const { walletId } = parseInput(delegationWalletQuery, query);
      const wallet = await partnerSubject(caller, userId, walletId);
      const policy = await delegationPolicy(location(caller), policyId, wallet);
      const key = { userId, walletId: wallet.id, policyId: policy.policyId };
      return parametersView(key, policy, await store.findParameters(location(caller), key));
    },

    /** GET .../user-parameters/{policyId}/history?walletId=: saved revisions, newest first; gated by the extension. */
    async parameterHistory(caller: Caller, userId: string, policyId: string, query: unknown) {
      await extension.requireEnabled(caller);
      await requireUser(caller.projectId, userId);
      const input = parseInput(userParameterHistoryQuery, query);
      const wallet = await partnerSubject(caller, userId, input.walletId);
      const before = input.cursor === undefined ? undefined : decodeRevisionCursor(input.cursor);
      // History stays readable after the policy is replaced or deactivated: it needs no active version.
      const rows = await store.parameterHistory(location(caller), { userId, walletId: wallet.id, policyId }, before, input.limit + 1);
      if (rows.length === 0 && before === undefined && !(await policies.findActive(location(caller), policyId))) throw notFound('Policy');
      const shown = rows.slice(0, input.limit);
      const hasMore = rows.length > input.limit;
      return {
        data: shown.map((r) => ({ revision: r.revision, policyVersion: String(r.policyVersion), values: r.values, createdAt: r.createdAt.toISOString(), createdBy: { type: 'user' as const, id: userId } })),
        pagination: { cursor: hasMore ? encodeRevisionCursor(shown.at(-1)!.revision) : null, hasMore, limit: input.limit },
      };
    },

    /** The user consents to the active version of a delegation policy for their wallet (users CLI). */
    async consent(args: unknown) {
      const { at, policy, key } = await userSubject(parseInput(consentInput, args));
      const now = clock.now();
      const record = await store.saveConsent(
        at,
        { ...key, policyVersion: policy.version, status: 'standing', consentedAt: now, revokedAt: null, updatedAt: now },
        audit(at, key, 'delegation.consent.give', { policyVersion: policy.version }),
      );
      return { userId: key.userId, ...consentEntry(key.walletId, policy, record) };
    },

    /** The user withdraws their consent (users CLI); revoking a missing consent is a 404. */
    async revokeConsent(args: unknown) {
      const { at, policy, key } = await userSubject(parseInput(consentInput, args));
      const existing = await store.findConsent(at, key);
      if (!existing) throw notFound('Consent');
      if (existing.status === 'revoked') return { userId: key.userId, ...consentEntry(key.walletId, policy, existing) };
      const now = clock.now();
      const record = await store.saveConsent(at, { ...existing, status: 'revoked', revokedAt: now, updatedAt: now }, audit(at, key, 'delegation.consent.revoke', { policyVersion: existing.policyVersion }));
      return { userId: key.userId, ...consentEntry(key.walletId, policy, record) };
    },

    /** The user saves one parameter value within its min/max (users CLI); gated by the extension. */
    async setParameter(args: unknown) {
      const input = parseInput(setParameterInput, args);
      const { at, policy, key } = await userSubject(input);
      await extension.requireEnabled(at);
      const declarations = parameterDeclarations(policy.document);
      const declaration = declarations.find((d) => d.id === input.parameter);
      if (!declaration) {
        const known = declarations.map((d) => d.id).join(', ') || 'none';
        throw fieldError('parameter', `policy ${policy.policyId} version ${policy.version} declares no parameter "${input.parameter}" (it declares: ${known})`);
      }
      const value = checkParameterValue(declaration, input.value);
      const current = await store.findParameters(at, key);
      const expectedRevision = input.expectedRevision ?? current?.revision ?? 0;
      // Values of parameters the active version no longer declares are not carried forward.
      const values = Object.fromEntries(Object.entries(current?.values ?? {}).filter(([id]) => declarations.some((d) => d.id === id)));
      values[declaration.id] = value;
      const outcome = await store.saveParameters(at, key, { expectedRevision, values, policyVersion: policy.version, at: clock.now() }, (record) =>
        audit(at, key, 'delegation.parameters.save', { policyVersion: policy.version, revision: record.revision, parameter: declaration.id, value }),
      );
      if (!outcome.ok) throw staleRevision(expectedRevision, outcome.currentRevision);
      return parametersView(key, policy, outcome.record);
    },
  };
}

export type DelegationService = ReturnType<typeof createDelegationService>;
