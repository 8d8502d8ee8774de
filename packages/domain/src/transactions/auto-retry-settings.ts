/**
 * The per-project (and environment) default of managed automatic retry for transfers: whether it is
 * on and the default fee ceiling (docs/transfers.md, "Managed automatic retry"). No stored row means
 * the built-in default (on, 10 times the first attempt's maxFeePerGas). Changed from the console by
 * owners, every change audited as `auto_retry.change`; read by the transfer path (`decideAutoRetry`).
 */
import { z } from 'zod';
import type { AuditEntry } from '../ports.ts';
import type { PolicyActor, PolicyLocation } from '../policies/ports.ts';
import type { PolicyScope } from '../policies/service.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import { weiSchema } from '../sponsorship/settings.ts';
import type { ProjectAutoRetryDefault } from './auto-retry-policy.ts';

export interface AutoRetrySettingsRecord {
  enabled: boolean;
  /** wei per gas; null: the built-in ceiling. */
  maxFeePerGas: bigint | null;
  updatedAt: Date;
  updatedBy: PolicyActor;
}

export interface AutoRetrySettingsStore {
  /** The stored default; null when never written (= the built-in default). */
  find(at: PolicyLocation): Promise<AutoRetrySettingsRecord | null>;
  /** Writes the whole setting and appends the audit row, in one transaction; answers what is stored. */
  save(at: PolicyLocation, settings: AutoRetrySettingsRecord, audit: (record: AutoRetrySettingsRecord) => AuditEntry): Promise<AutoRetrySettingsRecord>;
}

/** A change replaces the setting: the switch, and the default ceiling (null: the built-in one). */
export const autoRetrySettingsSchema = z.strictObject({
  enabled: z.boolean({ error: 'expected true or false' }),
  maxFeePerGas: weiSchema.nullable(),
});

export interface AutoRetrySettingsView {
  projectId: string;
  environment: PolicyLocation['environment'];
  enabled: boolean;
  /** Decimal wei per gas; null: the built-in ceiling (10 times the first attempt's maxFeePerGas). */
  maxFeePerGas: string | null;
  updatedAt: string | null;
  updatedBy: PolicyActor | null;
}

const location = (at: PolicyLocation): PolicyLocation => ({ projectId: at.projectId, environment: at.environment });

function view(at: PolicyLocation, record: AutoRetrySettingsRecord | null): AutoRetrySettingsView {
  return {
    projectId: at.projectId,
    environment: at.environment,
    enabled: record?.enabled ?? true,
    maxFeePerGas: record?.maxFeePerGas?.toString() ?? null,
    updatedAt: record ? record.updatedAt.toISOString() : null,
    updatedBy: record?.updatedBy ?? null,
  };
}

export function createAutoRetrySettings({ store, clock }: { store: AutoRetrySettingsStore; clock: Clock }) {
  return {
    async get(at: PolicyLocation): Promise<AutoRetrySettingsView> {
      return view(location(at), await store.find(location(at)));
    },

    /** The project's default as the transfer path reads it (null: nothing stored). */
    async projectDefault(at: PolicyLocation): Promise<ProjectAutoRetryDefault | null> {
      const record = await store.find(location(at));
      return record ? { enabled: record.enabled, maxFeePerGas: record.maxFeePerGas?.toString() ?? null } : null;
    },

    /** Replaces the setting; audited `auto_retry.change` with what it left. */
    async change(scope: PolicyScope, input: unknown): Promise<AutoRetrySettingsView> {
      const settings = parseInput(autoRetrySettingsSchema, input);
      const at = location(scope);
      const record = await store.save(at, { ...settings, updatedAt: clock.now(), updatedBy: scope.actor }, (stored) => ({
        projectId: scope.projectId,
        apiKeyId: scope.actor.type === 'api_key' ? scope.actor.id : null,
        walletId: null,
        requestId: scope.requestId ?? null,
        action: 'auto_retry.change',
        details: { environment: scope.environment, actor: scope.actor, enabled: stored.enabled, maxFeePerGas: stored.maxFeePerGas?.toString() ?? null },
      }));
      return view(at, record);
    },
  };
}

export type AutoRetrySettings = ReturnType<typeof createAutoRetrySettings>;
