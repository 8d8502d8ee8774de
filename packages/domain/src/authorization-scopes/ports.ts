import type { AuditEntry } from '../ports.ts';
import type { PolicyActor, PolicyLocation } from '../policies/ports.ts';

/** One entry of a user's assignment set: a role, or an attribute with its value (both declared by policies). */
export type Assignment = { role: string } | { attribute: string; value: string };

/** A user's current set in a scope. Revision 0 (no row yet) has no `updatedAt`. */
export interface AssignmentSetRecord {
  scopeId: string;
  userId: string;
  revision: number;
  assignments: Assignment[];
  updatedAt: Date | null;
}

/** The scope a wallet is bound to (null = unbound). Revision 0 (never written) has no `updatedAt`. */
export interface WalletBindingRecord {
  walletId: string;
  scopeId: string | null;
  revision: number;
  updatedAt: Date | null;
}

/** Who wrote a revision, when, under which request. */
export interface RevisionMeta {
  revision: number;
  createdAt: Date;
  createdBy: PolicyActor;
  requestId: string | null;
}

export interface AssignmentRevisionRecord extends RevisionMeta {
  assignments: Assignment[];
}

export interface BindingRevisionRecord extends RevisionMeta {
  scopeId: string | null;
}

/** A revision-checked write: `expectedRevision` must equal the stored revision (0 when nothing was written). */
export interface RevisionWrite {
  expectedRevision: number;
  at: Date;
  by: PolicyActor;
  requestId: string | null;
}

/** Written, or refused because the stored revision is another one (nothing was written). */
export type RevisionOutcome<T> = { ok: true; record: T } | { ok: false; currentRevision: number };

export interface AuthorizationScopeStore {
  /** Whether the user exists in the project (users are per project, not per environment). */
  userInProject(projectId: string, userId: string): Promise<boolean>;
  findAssignments(at: PolicyLocation, scopeId: string, userId: string): Promise<AssignmentSetRecord | null>;
  /**
   * In one transaction, only when the stored revision equals `write.expectedRevision`: stores the
   * set as the next revision, appends its revision row and the audit row. Of concurrent writes
   * with the same expected revision exactly one succeeds.
   */
  replaceAssignments(
    at: PolicyLocation,
    scopeId: string,
    userId: string,
    write: RevisionWrite & { assignments: Assignment[] },
    audit: (record: AssignmentSetRecord) => AuditEntry,
  ): Promise<RevisionOutcome<AssignmentSetRecord>>;
  /** Revisions newest first, those below `beforeRevision` when given. */
  assignmentHistory(at: PolicyLocation, scopeId: string, userId: string, beforeRevision: number | undefined, take: number): Promise<AssignmentRevisionRecord[]>;
  /** Users with a non-empty current set in the scope, by user id, those after `afterUserId` when given. */
  members(at: PolicyLocation, scopeId: string, afterUserId: string | undefined, take: number): Promise<AssignmentSetRecord[]>;
  findBinding(at: PolicyLocation, walletId: string): Promise<WalletBindingRecord | null>;
  /** The binding's revision-checked write, like `replaceAssignments`. */
  bindWallet(
    at: PolicyLocation,
    walletId: string,
    write: RevisionWrite & { scopeId: string | null },
    audit: (record: WalletBindingRecord) => AuditEntry,
  ): Promise<RevisionOutcome<WalletBindingRecord>>;
  bindingHistory(at: PolicyLocation, walletId: string, beforeRevision: number | undefined, take: number): Promise<BindingRevisionRecord[]>;
}

export interface PermissionsExtensionRecord {
  enabled: boolean;
  updatedAt: Date;
  updatedBy: PolicyActor;
}

export interface PermissionsExtensionStore {
  /** The switch of the project and environment; null when it was never set (= disabled). */
  find(at: PolicyLocation): Promise<PermissionsExtensionRecord | null>;
  /** Sets the switch and appends the audit row in one transaction. */
  set(at: PolicyLocation, state: PermissionsExtensionRecord, audit: AuditEntry): Promise<PermissionsExtensionRecord>;
}
