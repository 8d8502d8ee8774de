import { z } from 'zod';

const walletId = z.string({ error: 'required: the user wallet (wallet context)' }).min(1).max(100).describe("One of the user's wallets (a wallet they claimed)");

export const delegationWalletQuery = z.strictObject({ walletId }).meta({ id: 'DelegationWalletQuery' });
export const userParameterListQuery = z.strictObject({ walletId: walletId.optional() }).meta({ id: 'UserParameterListQuery' });
export const userParameterHistoryQuery = z.strictObject({
  walletId,
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

const environment = z.enum(['development', 'production'], { error: 'expected "development" or "production"' }).optional();
const id = (name: string) => z.string({ error: `${name} is required` }).min(1, { error: `${name} is required` }).max(100);

/** The users CLI's consent and revoke input (the end user acting). */
export const consentInput = z.strictObject({
  userId: id('userId'),
  walletId: id('walletId'),
  policyId: id('policyId'),
  environment: environment.describe('Omitted: the one environment where the policy is active'),
});

/** The users CLI's set-parameter input. */
export const setParameterInput = consentInput.extend({
  parameter: id('parameter'),
  value: z.string({ error: 'value is required' }),
  expectedRevision: z.number().int().min(0, { error: 'expected 0 or more' }).optional(),
});

const nullableIso = z.string().nullable();
const policySummary = z.object({
  policyId: z.string(),
  version: z.string().describe('The active version (decimal string)'),
  description: z.string().nullable(),
  walletType: z.string(),
  definition: z.record(z.string(), z.unknown()).describe('The policy document the user consents to'),
});
const consentView = z.object({
  walletId: z.string(),
  status: z.enum(['pending', 'standing', 'outdated', 'revoked']).describe('pending: never consented; standing: in force for the active version; outdated: consented to an older version; revoked'),
  inForce: z.boolean().describe('true only when standing for the active version'),
  consentedVersion: z.string().nullable(),
  consentedAt: nullableIso,
  revokedAt: nullableIso,
  updatedAt: nullableIso,
});
export const delegationConsentSchema = z.object({ policy: policySummary, consent: consentView }).meta({ id: 'DelegationConsent' });
export const delegationConsentListSchema = z.object({ requests: z.array(delegationConsentSchema) }).meta({ id: 'DelegationConsentList' });

const declaration = z.object({
  id: z.string(),
  label: z.string(),
  default: z.string(),
  min: z.string().nullable(),
  max: z.string().nullable(),
  ruleId: z.string(),
  limit: z.record(z.string(), z.unknown()),
});
export const userParameterListSchema = z
  .object({
    policies: z.array(z.object({ policy: policySummary.omit({ definition: true }), walletId: z.string(), revision: z.number().int(), parameters: z.array(declaration) })),
  })
  .meta({ id: 'UserParameterPolicies' });
export const userParametersSchema = z
  .object({
    userId: z.string(),
    walletId: z.string(),
    policyId: z.string(),
    policyVersion: z.string(),
    revision: z.number().int().describe('0 before the first save'),
    updatedAt: nullableIso,
    values: z.record(z.string(), z.string()).describe('Saved values by parameter id (base units)'),
    parameters: z.array(declaration.extend({ value: z.string().nullable(), effective: z.string().describe('The saved value when it fits the bounds, else the default') })),
  })
  .meta({ id: 'UserParameters' });
export const userParameterHistorySchema = z
  .object({
    data: z.array(
      z.object({ revision: z.number().int(), policyVersion: z.string(), values: z.record(z.string(), z.string()), createdAt: z.string(), createdBy: z.object({ type: z.literal('user'), id: z.string() }) }),
    ),
    pagination: z.object({ cursor: z.string().nullable(), hasMore: z.boolean(), limit: z.number().int() }),
  })
  .meta({ id: 'UserParameterHistory' });
