import type { AuditEntry, Environment } from '../ports.ts';
import type { WalletType } from '../wallets/addresses.ts';
import type { PolicyDocument } from './document.ts';

/** Stored version statuses; keep in step with the policy_versions CHECK constraint. */
export const policyStatuses = ['active', 'inactive'] as const;
export type PolicyStatus = (typeof policyStatuses)[number];

/** Who wrote a version: an API key, a console staff member, or the operator CLI (no id). */
export type PolicyActor = { type: 'api_key'; id: string } | { type: 'staff'; id: string } | { type: 'operator'; id: null };

/** Where a policy lives: a project and one environment (development and production never share). */
export interface PolicyLocation {
  projectId: string;
  environment: Environment;
}

export interface PolicyVersionRecord extends PolicyLocation {
  policyId: string;
  version: number;
  status: PolicyStatus;
  walletType: WalletType;
  document: PolicyDocument;
  effectiveFrom: Date | null;
  effectiveUntil: Date | null;
  createdAt: Date;
  createdBy: PolicyActor;
  deactivatedAt: Date | null;
  deactivatedBy: PolicyActor | null;
  /** The version that replaced this one; null when deactivated or still active. */
  replacedBy: number | null;
}

export interface PolicyStore {
  /**
   * In one transaction: creates the policy at version 1 or numbers the next version, stores it
   * active, makes the previously active version inactive (replaced by the new one) and appends the
   * audit row built from the new version. Concurrent applies of one policy get consecutive versions.
   * `checkPrevious` sees the latest existing version under the policy's lock; what it throws rolls
   * everything back. The stored document's `version` is the number given here.
   */
  apply(
    at: PolicyLocation,
    version: Omit<PolicyVersionRecord, 'version' | 'status' | 'deactivatedAt' | 'deactivatedBy' | 'replacedBy' | keyof PolicyLocation>,
    audit: (version: PolicyVersionRecord) => AuditEntry,
    checkPrevious?: (previous: PolicyVersionRecord) => void,
  ): Promise<PolicyVersionRecord>;
  /** In one transaction: makes the active version inactive and appends the audit row; null when none is active. */
  deactivate(
    at: PolicyLocation,
    policyId: string,
    change: { at: Date; by: PolicyActor },
    audit: (version: PolicyVersionRecord) => AuditEntry,
  ): Promise<PolicyVersionRecord | null>;
  /** The active version of the policy (whatever its effective window), or null. */
  findActive(at: PolicyLocation, policyId: string): Promise<PolicyVersionRecord | null>;
  /** Active versions whose effective window holds `now`, optionally of one wallet type; by policy id. */
  listActive(at: PolicyLocation, now: Date, walletType?: WalletType): Promise<PolicyVersionRecord[]>;
  /** Every active version whatever its effective window (evaluation filters by time itself), by policy id. */
  listAllActive(at: PolicyLocation): Promise<PolicyVersionRecord[]>;
  /**
   * A stamp that changes with every apply and deactivation in the project and environment (and
   * never returns to an earlier value), so processes can keep compiled policies until it moves.
   */
  activeStamp(at: PolicyLocation): Promise<string>;
  /** Every version of the policy (each was active once), newest first; empty when the policy does not exist. */
  listVersions(at: PolicyLocation, policyId: string): Promise<PolicyVersionRecord[]>;
  /** Whether the project exists (operator scopes name any project). */
  projectExists(projectId: string): Promise<boolean>;
}
