import type { RouteExamples } from '../http/route.ts';
import { apiKeyActor, apiKeyId, deadAddress, userId, walletId, walletNotFound } from './example-values.ts';

const policyNotFound = { summary: 'No active policy with this id', value: { code: 'NOT_FOUND', message: 'Policy not found' } };

/** A guardrail policy as docs/policies.md writes one: at most 0.005 ETH a day on Base Sepolia. */
const definition = {
  id: 'evm-guardrails',
  schemaVersion: 'permissions.policy.v1',
  version: '2',
  selector: { walletType: 'EVM', chainId: ['84532'] },
  metadata: { productMode: 'guardrail', description: 'At most 0.005 ETH a day per wallet' },
  rules: [
    {
      id: 'daily',
      effect: 'deny',
      actions: 'all',
      condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '5000000000000000' },
    },
  ],
};
const activePolicy = {
  policyId: 'evm-guardrails',
  version: '2',
  status: 'active',
  environment: 'development',
  walletType: 'EVM',
  effectiveFrom: '2026-11-25T07:12:00.000Z',
  effectiveUntil: null,
  createdAt: '2026-11-25T07:12:00.000Z',
  createdBy: apiKeyActor,
  deactivatedAt: null,
  deactivatedBy: null,
  replacedBy: null,
  definition,
};
const meters = {
  meters: [
    {
      ruleId: 'daily',
      meter: 'spend.native',
      asset: 'native',
      window: '1d',
      windowStart: '2026-11-25T00:00:00.000Z',
      windowEnd: '2026-11-26T00:00:00.000Z',
      op: 'gt',
      limit: '5000000000000000',
      spent: '2000000000000000',
      reserved: '0',
      remaining: '3000000000000000',
    },
  ],
};

/** Request and response examples of the policy routes, by operationId (openapi-examples.test.ts validates them). */
export const policiesExamples = {
  listPolicies: {
    response: { 200: { summary: 'One active guardrail policy', value: { policies: [activePolicy] } } },
  },
  getPolicy: {
    request: { summary: 'A policy by id', parameters: { policyId: 'evm-guardrails' } },
    response: { 200: { summary: 'The active version', value: activePolicy }, 404: policyNotFound },
  },
  listPolicyVersions: {
    request: { summary: 'The versions of a policy', parameters: { policyId: 'evm-guardrails' } },
    response: {
      200: {
        summary: 'Version 2 replaced version 1',
        value: {
          versions: [
            activePolicy,
            {
              ...activePolicy,
              version: '1',
              status: 'inactive',
              effectiveFrom: '2026-11-20T09:00:00.000Z',
              effectiveUntil: '2026-11-25T07:12:00.000Z',
              createdAt: '2026-11-20T09:00:00.000Z',
              deactivatedAt: '2026-11-25T07:12:00.000Z',
              deactivatedBy: apiKeyActor,
              replacedBy: '2',
              definition: { ...definition, version: '1' },
            },
          ],
        },
      },
      404: policyNotFound,
    },
  },
  getPolicyUsage: {
    request: { summary: "Today's native spend on Base Sepolia", parameters: { walletId, policyId: 'evm-guardrails', chainId: '84532' } },
    response: {
      200: { summary: '0.002 of 0.005 ETH spent today', value: meters },
      404: walletNotFound,
    },
  },
  getUserPolicyUsage: {
    request: { summary: "Today's native spend of a user's wallet", parameters: { userId, policyId: 'evm-guardrails', chainId: '84532', walletId } },
    response: { 200: { summary: '0.002 of 0.005 ETH spent today', value: meters } },
  },
  evaluatePolicies: {
    request: {
      summary: 'Would a transfer of 0.002 ETH pass?',
      body: { walletId, route: 'transfer', body: { to: deadAddress, value: '2000000000000000', chainId: '84532' } },
    },
    response: {
      200: {
        summary: 'Allowed: the daily meter stays under its limit',
        value: {
          decision: 'allow',
          reason: null,
          deniedBy: [],
          requirements: [],
          request: {
            walletType: 'EVM',
            walletId,
            apiKeyId,
            action: 'transfer',
            network: '84532',
            facts: { 'request.value.baseUnits': '2000000000000000' },
            legs: [{ to: deadAddress, asset: 'native', amount: '2000000000000000' }],
            undecoded: null,
          },
          policies: [
            {
              policyId: 'evm-guardrails',
              policyVersion: '2',
              rules: [
                {
                  ruleId: 'daily',
                  effect: 'deny',
                  outcome: 'not-matched',
                  facts: [{ 'request.value.baseUnits': '2000000000000000' }],
                  meters: [
                    {
                      meter: 'spend.native',
                      asset: 'native',
                      window: '1d',
                      windowStart: '2026-11-25T00:00:00.000Z',
                      windowEnd: '2026-11-26T00:00:00.000Z',
                      before: '2000000000000000',
                      after: '4000000000000000',
                      op: 'gt',
                      limit: '5000000000000000',
                    },
                  ],
                },
              ],
            },
          ],
        },
      },
    },
  },
} satisfies Record<string, RouteExamples>;
