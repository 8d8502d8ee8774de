import type { PolicyLocation, PolicyStore } from '../policies/ports.ts';
import type { Clock } from '../shared/clock.ts';
import type { ApprovalCaseRecord, ApprovalCaseStore } from './ports.ts';
import { lazyTransition } from './stages.ts';

export interface CaseRefreshDeps {
  store: ApprovalCaseStore;
  policies: Pick<PolicyStore, 'listAllActive'>;
  clock: Clock;
}

/**
 * Refreshes cases where they are read: an open case past its expiry becomes `expired` (at its
 * `expiresAt`), one whose policy version is no longer active `invalidated` (now). The write is
 * conditional, so a concurrent decision or claim is never overwritten.
 */
export function createCaseRefresh({ store, policies, clock }: CaseRefreshDeps) {
  async function activeVersions(at: PolicyLocation): Promise<Set<string>> {
    return new Set((await policies.listAllActive(at)).map((p) => `${p.policyId}|${p.version}`));
  }

  async function refreshAll(records: ApprovalCaseRecord[]): Promise<ApprovalCaseRecord[]> {
    const open = records.filter((r) => r.status === 'pending' || r.status === 'completed');
    if (open.length === 0) return records;
    const now = clock.now();
    const versions = new Map<string, Set<string>>();
    const out: ApprovalCaseRecord[] = [];
    for (const record of records) {
      const key = `${record.projectId}|${record.environment}`;
      let active = versions.get(key);
      if (!active && (record.status === 'pending' || record.status === 'completed')) {
        active = await activeVersions({ projectId: record.projectId, environment: record.environment });
        versions.set(key, active);
      }
      const move = active ? lazyTransition(record, now, active) : null;
      if (!move) {
        out.push(record);
        continue;
      }
      const moved = await store.transition(record.id, ['pending', 'completed'], move.to, move.at, move.reason);
      out.push(moved ?? (await store.find(record.id)) ?? record);
    }
    return out;
  }

  return {
    refreshAll,
    async refresh(record: ApprovalCaseRecord): Promise<ApprovalCaseRecord> {
      return (await refreshAll([record]))[0]!;
    },
  };
}

export type CaseRefresh = ReturnType<typeof createCaseRefresh>;
