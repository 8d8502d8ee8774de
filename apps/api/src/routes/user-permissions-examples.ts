import type { RouteExamples } from '../http/route.ts';
import { onlyPage, userId, walletId } from './example-values.ts';

const description = 'Limits the user agrees to and may adjust';

/** The delegation policy of docs/approvals.md: a per-transfer and a daily limit the user may adjust. */
const definition = {
  id: 'user-limits',
  schemaVersion: 'permissions.policy.v1',
  version: '1',
  selector: { walletType: 'EVM' },
  metadata: { productMode: 'delegation', description },
  rules: [
    {
      id: 'per-transfer',
      effect: 'deny',
      actions: ['transfer', 'sign_transaction'],
      condition: {
        fact: 'request.value.baseUnits',
        op: 'gt',
        value: '1000',
        parameter: { id: 'per-transfer', label: 'Per transfer', min: '10', max: '100000' },
      },
    },
    {
      id: 'daily',
      effect: 'deny',
      actions: ['transfer', 'sign_transaction'],
      condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '5000', parameter: { id: 'daily', label: 'Per day' } },
    },
  ],
};
const policy = { policyId: 'user-limits', version: '1', description, walletType: 'EVM' };
const standingConsent = {
  walletId,
  status: 'standing',
  inForce: true,
  consentedVersion: '1',
  consentedAt: '2026-11-25T10:00:00.000Z',
  revokedAt: null,
  updatedAt: '2026-11-25T10:00:00.000Z',
};
const declarations = [
  { id: 'per-transfer', label: 'Per transfer', default: '1000', min: '10', max: '100000', ruleId: 'per-transfer', limit: { kind: 'compare', fact: 'request.value.baseUnits', op: 'gt' } },
  { id: 'daily', label: 'Per day', default: '5000', min: null, max: null, ruleId: 'daily', limit: { kind: 'aggregate', meter: 'spend.native', window: '1d', asset: null, op: 'gt' } },
];
const [perTransfer, daily] = declarations;
const userNotFound = { summary: 'No such user in this project', value: { code: 'NOT_FOUND', message: 'User not found' } };

/** Request and response examples of the delegation consent and user parameter routes, by operationId (openapi-examples.test.ts validates them). */
export const userPermissionsExamples = {
  listUserPolicyConsents: {
    request: { summary: "The consents for one of the user's wallets", parameters: { userId, walletId } },
    response: {
      200: { summary: 'One delegation policy, consented to', value: { requests: [{ policy: { ...policy, definition }, consent: standingConsent }] } },
      404: userNotFound,
    },
  },
  getUserPolicyConsent: {
    request: { summary: 'The consent to one policy', parameters: { userId, policyId: 'user-limits', walletId } },
    response: {
      200: { summary: 'A standing consent to the active version', value: { policy: { ...policy, definition }, consent: standingConsent } },
      404: userNotFound,
    },
  },
  listUserAdjustablePolicies: {
    request: { summary: "Every wallet the user claimed", parameters: { userId } },
    response: {
      200: { summary: 'One policy with two parameters', value: { policies: [{ policy, walletId, revision: 1, parameters: declarations }] } },
      404: userNotFound,
    },
  },
  getUserPolicyParameters: {
    request: { summary: "The user's limits on one wallet", parameters: { userId, policyId: 'user-limits', walletId } },
    response: {
      200: {
        summary: 'Per transfer set to 50000, per day at its default',
        value: {
          userId,
          walletId,
          policyId: 'user-limits',
          policyVersion: '1',
          revision: 1,
          updatedAt: '2026-11-25T10:05:00.000Z',
          values: { 'per-transfer': '50000' },
          parameters: [
            { ...perTransfer, value: '50000', effective: '50000' },
            { ...daily, value: null, effective: '5000' },
          ],
        },
      },
      404: userNotFound,
    },
  },
  listUserPolicyParameterHistory: {
    request: { summary: 'The saved revisions, 20 a page', parameters: { userId, policyId: 'user-limits', walletId, limit: 20 } },
    response: {
      200: {
        summary: 'One saved revision',
        value: {
          data: [{ revision: 1, policyVersion: '1', values: { 'per-transfer': '50000' }, createdAt: '2026-11-25T10:05:00.000Z', createdBy: { type: 'user', id: userId } }],
          pagination: onlyPage(20),
        },
      },
      404: userNotFound,
    },
  },
} satisfies Record<string, RouteExamples>;
