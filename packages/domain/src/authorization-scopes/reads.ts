/**
 * Reads of authorization scopes that only the console needs (kept apart from the REST service):
 * which scope ids a project and environment uses, and the state of the extension switch.
 */
import type { PolicyLocation } from '../policies/ports.ts';
import type { PermissionsExtensionView } from './extension.ts';
import type { PermissionsExtensionStore } from './ports.ts';

export interface AuthorizationScopeDirectoryStore {
  /**
   * The distinct scope ids of the project and environment that have a member (a non-empty
   * assignment set) or a wallet bound to them, sorted; at most `take`.
   */
  scopeIds(at: PolicyLocation, take: number): Promise<string[]>;
}

export const SCOPE_DIRECTORY_LIMIT = 500;

export function createAuthorizationScopeReads({ directory, extension }: { directory: AuthorizationScopeDirectoryStore; extension: Pick<PermissionsExtensionStore, 'find'> }) {
  return {
    /** Scope ids in use (members or bindings), sorted, at most 500. */
    async scopeIds(at: PolicyLocation): Promise<{ scopeIds: string[]; truncated: boolean }> {
      const ids = await directory.scopeIds({ projectId: at.projectId, environment: at.environment }, SCOPE_DIRECTORY_LIMIT + 1);
      return { scopeIds: ids.slice(0, SCOPE_DIRECTORY_LIMIT), truncated: ids.length > SCOPE_DIRECTORY_LIMIT };
    },

    /** The switch as `PermissionsExtension.set` answers it; never set = disabled, no who or when. */
    async extensionState(at: PolicyLocation): Promise<PermissionsExtensionView> {
      const record = await extension.find({ projectId: at.projectId, environment: at.environment });
      return {
        projectId: at.projectId,
        environment: at.environment,
        enabled: record?.enabled ?? false,
        updatedAt: record ? record.updatedAt.toISOString() : null,
        updatedBy: record?.updatedBy ?? null,
      };
    },
  };
}

export type AuthorizationScopeReads = ReturnType<typeof createAuthorizationScopeReads>;
