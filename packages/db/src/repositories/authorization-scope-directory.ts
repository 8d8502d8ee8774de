import type { AuthorizationScopeDirectoryStore } from '@wallet/domain';
import type { Database } from '../database.ts';

/**
 * The console's list of scope ids in use: those with a member (non-empty assignment set) or a bound
 * wallet in the project and environment. Both tables lead with (project_id, environment).
 */
export function createAuthorizationScopeDirectoryStore({ query }: Database): AuthorizationScopeDirectoryStore {
  return {
    async scopeIds(at, take) {
      const rows = await query<{ scope_id: string }>(
        `SELECT scope_id FROM authorization_scope_assignments
           WHERE project_id = $1 AND environment = $2 AND assignments <> '[]'::jsonb
         UNION
         SELECT scope_id FROM wallet_authorization_scopes
           WHERE project_id = $1 AND environment = $2 AND scope_id IS NOT NULL
         ORDER BY scope_id
         LIMIT $3`,
        [at.projectId, at.environment, take],
      );
      return rows.map((row) => row.scope_id);
    },
  };
}
