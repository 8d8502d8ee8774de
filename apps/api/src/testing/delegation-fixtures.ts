import type { TestApp } from './harness.ts';
import { scopeProject } from './scope-fixtures.ts';

const amountRule = { id: 'per-transfer', effect: 'deny', actions: ['transfer', 'sign_transaction'] };

/** A delegation policy with two adjustable limits: a per-transfer cap (10..100000, default 1000) and a daily meter (default 5000, unbounded). */
export const delegationPolicy = (id = 'user-limits', selector: Record<string, unknown> = { walletType: 'EVM' }) => ({
  id,
  schemaVersion: 'permissions.policy.v1',
  version: '1',
  selector,
  metadata: { productMode: 'delegation', description: 'Limits the user agrees to and may adjust' },
  rules: [
    { ...amountRule, condition: { fact: 'request.value.baseUnits', op: 'gt', value: '1000', parameter: { id: 'per-transfer', label: 'Per transfer', min: '10', max: '100000' } } },
    { id: 'daily', effect: 'deny', actions: ['transfer', 'sign_transaction'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '5000', parameter: { id: 'daily', label: 'Per day' } } },
  ],
});

export const consentsPath = (userId: string, walletId: string, policyId?: string) =>
  `/v1/permissions-v2/users/${userId}/delegation-consents${policyId ? `/${encodeURIComponent(policyId)}` : ''}?walletId=${walletId}`;
export const parametersPath = (userId: string, policyId?: string, walletId?: string, suffix = '') =>
  `/v1/permissions-v2/users/${userId}/user-parameters${policyId ? `/${encodeURIComponent(policyId)}${suffix}` : ''}${walletId ? `?walletId=${walletId}` : ''}`;

/** A partner project (scopeProject) whose users sign up and claim EVM wallets the partner created for them. */
export async function delegationProject(app: TestApp) {
  const project = await scopeProject(app);
  return {
    ...project,
    /** A signed-up user owning (having claimed) one EVM wallet. */
    async owner(): Promise<{ userId: string; walletId: string }> {
      const email = `owner-${Math.random().toString(36).slice(2)}@example.com`;
      const wallet = await app.request('POST', '/v1/wallets', { key: project.key, body: { type: 'EVM', userIdentifier: email, userIdentifierType: 'EMAIL' } });
      if (wallet.status !== 201 && wallet.status !== 200) throw new Error(JSON.stringify(wallet.body));
      const { userId } = await app.services.users.signUp({ projectId: project.projectId, identifier: email, identifierType: 'EMAIL' });
      return { userId, walletId: (wallet.body as { id: string }).id };
    },
  };
}
