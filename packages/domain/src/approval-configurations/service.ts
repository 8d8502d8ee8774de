/**
 * Requirement configuration (permissions v2): the approval requirements of a project and
 * environment's active policies as seen from an authorization scope, and per scope the values a
 * partner chose for their configurable declarations (`<stageId>.requiredApprovals` within the
 * declared bounds). Writes name the revision they replace (`expectedRevision`, 0 before the first
 * write); a change that would alter open approval cases is refused with their ids unless forced.
 */
import { ApiError, invalidRequest, notFound } from '../errors.ts';
import type { AuditEntry } from '../ports.ts';
import type { PolicyLocation, PolicyStore, PolicyVersionRecord } from '../policies/ports.ts';
import { policyScopeOfCaller } from '../policies/service.ts';
import type { PermissionsExtension } from '../authorization-scopes/extension.ts';
import { revisionListQuery } from '../authorization-scopes/schemas.ts';
import { checkScopeId, decodeRevisionCursor, encodeRevisionCursor, staleRevision } from '../authorization-scopes/revisions.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import type { ApprovalCaseLinks, ApprovalConfigurationRecord, ApprovalConfigurationStore, ConfigurationValues, RequirementRef } from './ports.ts';
import { applyConfiguration, changesEffective, declarationsOf, effectiveValues, requirementsOf, valueProblems, type RequirementView } from './requirements.ts';
import { configurationBody } from './schemas.ts';

export interface ApprovalConfigurationServiceDeps {
  store: ApprovalConfigurationStore;
  policies: Pick<PolicyStore, 'listAllActive' | 'findActive' | 'listVersions'>;
  /** The open approval cases a change reaches (wired to the cases slice). */
  cases: ApprovalCaseLinks;
  extension: PermissionsExtension;
  clock: Clock;
}

/** The path parameters naming one requirement in a scope. */
export interface RequirementPath {
  authorizationScopeId: string;
  policyId: string;
  policyVersion: string;
  requirementId: string;
}

export const approvalCasesAffected = (affectedCaseIds: string[]) =>
  new ApiError(
    409,
    'APPROVAL_CASES_AFFECTED',
    `This change would alter ${affectedCaseIds.length} open approval case(s); nothing was changed. Resend with "force": true to apply it and invalidate them`,
    { affectedCaseIds },
  );

const requirementNotFound = () => notFound('Approval requirement');
const configurationNotFound = () => notFound('Approval configuration');
const location = (at: PolicyLocation): PolicyLocation => ({ projectId: at.projectId, environment: at.environment });
const versionPattern = /^[1-9]\d{0,9}$/;




const configurationView = (record: ApprovalConfigurationRecord) => ({
  authorizationScopeId: record.scopeId,
  policyId: record.policyId,
  policyVersion: String(record.policyVersion),
  requirementId: record.requirementId,
  revision: record.revision,
  values: record.values,
  updatedAt: record.updatedAt.toISOString(),
  updatedBy: record.updatedBy,
});

export function createApprovalConfigurationService({ store, policies, cases, extension, clock }: ApprovalConfigurationServiceDeps) {
  /** The requirement's entries (one per rule carrying its id) in the version, and its ref; 404 when missing. */
  function requirementIn(version: PolicyVersionRecord | null | undefined, requirementId: string): { ref: RequirementRef; entries: RequirementView[] } {
    const entries = version ? requirementsOf([version]).filter((r) => r.requirementId === requirementId) : [];
    if (!version || entries.length === 0) throw requirementNotFound();
    return { ref: { policyId: version.policyId, policyVersion: version.version, requirementId }, entries };
  }

  /** The requirement in the policy's active version (404 when that version is not the active one). */
  async function activeRequirement(caller: Caller, path: RequirementPath) {
    checkScopeId(path.authorizationScopeId);
    if (!versionPattern.test(path.policyVersion)) throw requirementNotFound();
    const active = await policies.findActive(location(caller), path.policyId);
    return requirementIn(active?.version === Number(path.policyVersion) ? active : null, path.requirementId);
  }

  /** The requirement in a version that is or was active (stored configurations outlive their version). */
  async function anyRequirement(caller: Caller, path: RequirementPath) {
    checkScopeId(path.authorizationScopeId);
    if (!versionPattern.test(path.policyVersion)) throw requirementNotFound();
    const versions = await policies.listVersions(location(caller), path.policyId);
    return requirementIn(versions.find((v) => v.version === Number(path.policyVersion)), path.requirementId);
  }

  const audit = (caller: Caller, scopeId: string, record: ApprovalConfigurationRecord, force: boolean, invalidatedCaseIds: string[]): AuditEntry => {
    const scope = policyScopeOfCaller(caller);
    return {
      projectId: scope.projectId,
      apiKeyId: scope.actor.type === 'api_key' ? scope.actor.id : null,
      walletId: null,
      requestId: scope.requestId ?? null,
      action: Object.keys(record.values).length === 0 ? 'approval_configuration.reset' : 'approval_configuration.update',
      details: {
        environment: scope.environment,
        actor: scope.actor,
        authorizationScopeId: scopeId,
        policyId: record.policyId,
        policyVersion: String(record.policyVersion),
        requirementId: record.requirementId,
        revision: record.revision,
        values: record.values,
        force,
        invalidatedCaseIds,
      },
    };
  };

  return {
    /** Every approval requirement of the active policies (whatever their effective window). */
    async list(caller: Caller, scopeId: string): Promise<{ requirements: RequirementView[] }> {
      checkScopeId(scopeId);
      return { requirements: requirementsOf(await policies.listAllActive(location(caller))) };
    },

    /** One requirement of an active policy version (the first rule carrying the id). */
    async get(caller: Caller, path: RequirementPath): Promise<RequirementView> {
      return (await activeRequirement(caller, path)).entries[0]!;
    },

    /** The stored configuration; 404 before the first write. */
    async getConfiguration(caller: Caller, path: RequirementPath) {
      const { ref } = await anyRequirement(caller, path);
      const record = await store.find(location(caller), path.authorizationScopeId, ref);
      if (!record) throw configurationNotFound();
      return configurationView(record);
    },

    /** The requirement with the configuration applied; `configuration: null` when never written. */
    async effective(caller: Caller, path: RequirementPath) {
      const { ref, entries } = await activeRequirement(caller, path);
      const requirement = entries[0]!;
      const record = await store.find(location(caller), path.authorizationScopeId, ref);
      const values = record?.values ?? null;
      return {
        authorizationScopeId: path.authorizationScopeId,
        ...requirement,
        stages: applyConfiguration(requirement, values),
        values: effectiveValues(requirement, values),
        configuration: record ? { revision: record.revision, values: record.values, updatedAt: record.updatedAt.toISOString(), updatedBy: record.updatedBy } : null,
      };
    },

    /**
     * PUT: stores `values` as the next revision (`{}` resets to the defaults); gated by the
     * extension. 400 for undeclared keys and values outside the bounds, 409 CONFLICT for a stale
     * revision, 409 APPROVAL_CASES_AFFECTED when open cases would change and `force` is not true.
     */
    async put(caller: Caller, path: RequirementPath, body: unknown) {
      await extension.requireEnabled(caller);
      const { ref, entries } = await activeRequirement(caller, path);
      const input = parseInput(configurationBody, body);
      const problems = valueProblems(input.values, declarationsOf(entries));
      if (problems.length > 0) throw invalidRequest(`Invalid request: ${problems[0]!.path}: ${problems[0]!.message}`, { details: problems });
      const values = input.values as ConfigurationValues;
      const at = location(caller);
      if (input.expectedRevision === undefined) throw staleRevision(undefined, (await store.find(at, path.authorizationScopeId, ref))?.revision ?? 0);
      const scope = policyScopeOfCaller(caller);
      const force = input.force === true;
      const outcome = await store.write(
        at,
        path.authorizationScopeId,
        ref,
        { expectedRevision: input.expectedRevision, values, at: clock.now(), by: scope.actor, requestId: scope.requestId ?? null },
        { changesEffective: (previous) => changesEffective(entries, previous, values), force, cases },
        (record, invalidated) => audit(caller, path.authorizationScopeId, record, force, invalidated),
      );
      if (!outcome.ok) throw 'affectedCaseIds' in outcome ? approvalCasesAffected(outcome.affectedCaseIds) : staleRevision(input.expectedRevision, outcome.currentRevision);
      return { ...configurationView(outcome.record), invalidatedCaseIds: outcome.invalidatedCaseIds };
    },

    /** Configuration revisions, newest first, in pages (`cursor`, `limit` 1-100). */
    async history(caller: Caller, path: RequirementPath, query: unknown) {
      const { ref } = await anyRequirement(caller, path);
      const input = parseInput(revisionListQuery, query);
      const before = input.cursor === undefined ? undefined : decodeRevisionCursor(input.cursor);
      const rows = await store.history(location(caller), path.authorizationScopeId, ref, before, input.limit + 1);
      const hasMore = rows.length > input.limit;
      const shown = rows.slice(0, input.limit);
      return {
        data: shown.map((row) => ({ revision: row.revision, values: row.values, createdAt: row.createdAt.toISOString(), createdBy: row.createdBy, requestId: row.requestId })),
        pagination: { cursor: hasMore ? encodeRevisionCursor(shown.at(-1)!.revision) : null, hasMore, limit: input.limit },
      };
    },
  };
}

export type ApprovalConfigurationService = ReturnType<typeof createApprovalConfigurationService>;
