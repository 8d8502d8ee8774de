import type { AuditEntry, WalletRecord } from '../ports.ts';
import type { PolicyLocation } from '../policies/ports.ts';

/** Stored consent states; keep in step with the delegation_consents CHECK constraint. */
export const consentStatuses = ['standing', 'revoked'] as const;
export type ConsentStatus = (typeof consentStatuses)[number];

/** Who owns a consent or a parameter set: a user, for one of the wallets they claimed, and a delegation policy. */
export interface DelegationKey {
  userId: string;
  walletId: string;
  policyId: string;
}

export interface ConsentRecord extends DelegationKey {
  /** The policy version consented to (a newer active version is not covered). */
  policyVersion: number;
  status: ConsentStatus;
  consentedAt: Date;
  revokedAt: Date | null;
  updatedAt: Date;
}

/** Saved parameter values (parameter id -> base units). Revision 0 (nothing saved) has no `updatedAt`. */
export interface ParameterSetRecord extends DelegationKey {
  revision: number;
  values: Record<string, string>;
  updatedAt: Date | null;
}

export interface ParameterRevisionRecord {
  revision: number;
  policyVersion: number;
  values: Record<string, string>;
  createdAt: Date;
}

export interface DelegationStore {
  /** The user's project, or null when no such user exists. */
  findUser(userId: string): Promise<{ id: string; projectId: string } | null>;
  /** The wallets the user claimed (user-owned wallets), by id. */
  claimedWallets(projectId: string, userId: string): Promise<WalletRecord[]>;
  findConsent(at: PolicyLocation, key: DelegationKey): Promise<ConsentRecord | null>;
  /** The user's consents for the wallet, every policy. */
  listConsents(at: PolicyLocation, userId: string, walletId: string): Promise<ConsentRecord[]>;
  /** Creates or replaces the consent and appends the audit row in one transaction. */
  saveConsent(at: PolicyLocation, record: ConsentRecord, audit: AuditEntry): Promise<ConsentRecord>;
  findParameters(at: PolicyLocation, key: DelegationKey): Promise<ParameterSetRecord | null>;
  /**
   * In one transaction, only when the stored revision equals `expectedRevision` (0: none yet):
   * stores the values as the next revision, appends the revision row and the audit row. Of
   * concurrent saves with the same expected revision exactly one succeeds; the others get the
   * current revision.
   */
  saveParameters(
    at: PolicyLocation,
    key: DelegationKey,
    write: { expectedRevision: number; values: Record<string, string>; policyVersion: number; at: Date },
    audit: (record: ParameterSetRecord) => AuditEntry,
  ): Promise<{ ok: true; record: ParameterSetRecord } | { ok: false; currentRevision: number }>;
  /** Revisions newest first, those below `beforeRevision` when given. */
  parameterHistory(at: PolicyLocation, key: DelegationKey, beforeRevision: number | undefined, take: number): Promise<ParameterRevisionRecord[]>;
}
