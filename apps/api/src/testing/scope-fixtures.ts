import type { TestApp } from './harness.ts';
import { policyProject } from './policy-fixtures.ts';

export const assignmentsPath = (scopeId: string, userId: string) => `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(scopeId)}/users/${userId}/assignments`;
export const membersPath = (scopeId: string) => `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(scopeId)}/members`;
export const walletScopePath = (walletId: string) => `/v1/permissions-v2/wallets/${walletId}/authorization-scope`;

/** A fresh partner project (policyProject) with users, PUTs and the extension switch of its environment. */
export async function scopeProject(app: TestApp, options: Parameters<typeof policyProject>[1] = {}) {
  const project = await policyProject(app, options);
  const operator = await app.services.policies.operatorScope(project.projectId, project.environment);
  return {
    ...project,
    put: (urlPath: string, body: unknown, headers: Record<string, string> = {}) => app.request('PUT', urlPath, { key: project.key, body, headers }),
    enable: () => app.services.permissionsExtension.set(operator, true),
    disable: () => app.services.permissionsExtension.set(operator, false),
    async user(): Promise<string> {
      const { userId } = await app.services.users.signUp({ projectId: project.projectId, identifier: `scope-${Math.random().toString(36).slice(2)}@example.com`, identifierType: 'EMAIL' });
      return userId;
    },
  };
}

export type ScopeProject = Awaited<ReturnType<typeof scopeProject>>;
