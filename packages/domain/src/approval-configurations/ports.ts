import type { AuditEntry } from '../ports.ts';
import type { PolicyActor, PolicyLocation } from '../policies/ports.ts';
import type { RevisionMeta, RevisionWrite } from '../authorization-scopes/ports.ts';

/** One approval requirement of one policy version: what cases and configurations name. */
export interface RequirementRef {
  policyId: string;
  policyVersion: number;
  requirementId: string;
}

/** Configured values by declared key (`<stageId>.requiredApprovals`); `{}` = the defaults. */
export type ConfigurationValues = Record<string, number>;

/** The stored configuration of a requirement in a scope (there is none before the first write). */
export interface ApprovalConfigurationRecord extends RequirementRef {
  scopeId: string;
  revision: number;
  values: ConfigurationValues;
  updatedAt: Date;
  updatedBy: PolicyActor;
}

export interface ApprovalConfigurationRevisionRecord extends RevisionMeta {
  values: ConfigurationValues;
}

/**
 * A database transaction of the configuration store, opaque to the domain: the store hands it to
 * the approval cases port so that finding and invalidating affected cases commit (or roll back)
 * with the configuration write.
 */
export interface StoreTransaction {
  readonly storeTransaction: true;
}

/**
 * The approval cases a configuration change reaches (the cases slice owns their table). A case is
 * open while pending and, once complete, until used to sign or expired (public-shapes-2).
 */
export interface ApprovalCaseLinks {
  /**
   * Ids of the open cases of the scope that gate this requirement, oldest first; with `tx`, read in
   * the configuration write's transaction (after its row lock).
   */
  openCasesOf(at: PolicyLocation, scopeId: string, ref: RequirementRef, tx?: StoreTransaction): Promise<string[]>;
  /** Invalidates the cases (they never complete), in the configuration write's transaction. */
  invalidateCases(tx: StoreTransaction, at: PolicyLocation, ids: string[], change: { at: Date; reason: 'configuration_changed' }): Promise<void>;
}

/** What a revision-checked configuration write does about open cases. */
export interface CasesCheck {
  /** Whether the new values change what the previous ones (null = never written) made effective. */
  changesEffective(previous: ConfigurationValues | null): boolean;
  /** Apply anyway and invalidate the affected cases (body `force: true`). */
  force: boolean;
  cases: ApprovalCaseLinks;
}

/** Written (with the cases it invalidated), stale, or refused because open cases would change. */
export type ConfigurationOutcome =
  | { ok: true; record: ApprovalConfigurationRecord; invalidatedCaseIds: string[] }
  | { ok: false; currentRevision: number }
  | { ok: false; affectedCaseIds: string[] };

export interface ApprovalConfigurationStore {
  find(at: PolicyLocation, scopeId: string, ref: RequirementRef): Promise<ApprovalConfigurationRecord | null>;
  /**
   * The stored values for the signing side at case opening: null when never written (a reset
   * stores `{}`, which is returned as such).
   */
  configuredValues(at: PolicyLocation, scopeId: string, policyId: string, policyVersion: number, requirementId: string): Promise<ConfigurationValues | null>;
  /**
   * In one transaction, only when the stored revision equals `write.expectedRevision`: stores the
   * values as the next revision; when they change the effective values, asks `check.cases` for
   * the open cases (refusing with their ids unless `check.force`, else invalidating them); then
   * appends the revision row and the audit row. Of concurrent writes with the same expected
   * revision exactly one succeeds; a refusal writes nothing.
   */
  write(
    at: PolicyLocation,
    scopeId: string,
    ref: RequirementRef,
    write: RevisionWrite & { values: ConfigurationValues },
    check: CasesCheck,
    audit: (record: ApprovalConfigurationRecord, invalidatedCaseIds: string[]) => AuditEntry,
  ): Promise<ConfigurationOutcome>;
  /** Revisions newest first, those below `beforeRevision` when given. */
  history(at: PolicyLocation, scopeId: string, ref: RequirementRef, beforeRevision: number | undefined, take: number): Promise<ApprovalConfigurationRevisionRecord[]>;
}
