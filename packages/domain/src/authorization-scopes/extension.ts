import { ApiError } from '../errors.ts';
import type { PolicyLocation } from '../policies/ports.ts';
import type { PolicyScope } from '../policies/service.ts';
import type { Clock } from '../shared/clock.ts';
import type { PermissionsExtensionStore } from './ports.ts';

export const extensionUnavailable = () =>
  new ApiError(
    403,
    'PERMISSIONS_V2_EXTENSION_UNAVAILABLE',
    'The permissions v2 extension (conditional approvals, user-adjustable limits) is not enabled for this project and environment',
  );

export interface PermissionsExtensionView {
  projectId: string;
  environment: PolicyLocation['environment'];
  enabled: boolean;
  updatedAt: string | null;
  updatedBy: { type: string; id: string | null } | null;
}

/**
 * The per project and environment switch of the permissions v2 extension (spec: "enabled per
 * app"). Disabled until someone enables it; every switch is audited.
 */
export function createPermissionsExtension({ store, clock }: { store: PermissionsExtensionStore; clock: Clock }) {
  const view = (at: PolicyLocation, record: Awaited<ReturnType<PermissionsExtensionStore['find']>>): PermissionsExtensionView => ({
    projectId: at.projectId,
    environment: at.environment,
    enabled: record?.enabled ?? false,
    updatedAt: record ? record.updatedAt.toISOString() : null,
    updatedBy: record?.updatedBy ?? null,
  });
  const location = (at: PolicyLocation): PolicyLocation => ({ projectId: at.projectId, environment: at.environment });

  return {
    /** 403 `PERMISSIONS_V2_EXTENSION_UNAVAILABLE` unless enabled for the project and environment. */
    async requireEnabled(at: PolicyLocation): Promise<void> {
      if (!(await store.find(location(at)))?.enabled) throw extensionUnavailable();
    },

    /** Enables or disables (also when already in that state: the switch is recorded each time). */
    async set(scope: PolicyScope, enabled: boolean): Promise<PermissionsExtensionView> {
      const record = await store.set(
        location(scope),
        { enabled, updatedAt: clock.now(), updatedBy: scope.actor },
        {
          projectId: scope.projectId,
          apiKeyId: scope.actor.type === 'api_key' ? scope.actor.id : null,
          walletId: null,
          requestId: scope.requestId ?? null,
          action: enabled ? 'permissions.extension.enable' : 'permissions.extension.disable',
          details: { environment: scope.environment, actor: scope.actor },
        },
      );
      return view(scope, record);
    },
  };
}

export type PermissionsExtension = ReturnType<typeof createPermissionsExtension>;
