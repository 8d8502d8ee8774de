import { z } from 'zod';

const MAX_VALUES = 50;

export const configurationBody = z
  .strictObject({
    expectedRevision: z
      .number({ error: 'expected an integer (0 before the first write)' })
      .int({ error: 'expected an integer (0 before the first write)' })
      .min(0, { error: 'expected 0 or more' })
      .optional()
      .describe('Required: the revision this write replaces (0 before the first write, then the revision last read); missing or not current = 409 CONFLICT with currentRevision'),
    // Keys and values are checked against the requirement's declarations by the use case (400 naming the key and its bounds).
    values: z
      .record(z.string(), z.unknown(), { error: 'expected an object of declared keys to integers ({} resets to the defaults)' })
      .refine((values) => Object.keys(values).length <= MAX_VALUES, { error: `at most ${MAX_VALUES} values` })
      .describe('Declared keys (`<stageId>.requiredApprovals`) to integers within their bounds; {} resets every value to the policy default'),
    force: z.boolean({ error: 'expected true or false' }).optional().describe('true applies a change that affects open approval cases and invalidates them'),
  })
  .meta({ id: 'ApprovalConfigurationBody' });

const actorSchema = z.object({ type: z.enum(['api_key', 'staff', 'operator']), id: z.string().nullable() });
const valuesSchema = z.record(z.string(), z.number().int());
const stageSchema = z.object({ id: z.string(), eligibility: z.object({ roles: z.array(z.string()), attributes: z.record(z.string(), z.array(z.string())) }), requiredApprovals: z.number().int() });
const configurableSchema = z.object({ key: z.string().describe('`<stageId>.requiredApprovals`'), min: z.number().int(), max: z.number().int(), default: z.number().int() });

const requirementShape = {
  policyId: z.string(),
  policyVersion: z.string().describe('Decimal string, e.g. "1"'),
  ruleId: z.string(),
  requirementId: z.string(),
  stages: z.array(stageSchema),
  configurable: z.array(configurableSchema),
};

export const approvalRequirementSchema = z.object(requirementShape).meta({ id: 'ApprovalRequirement' });
export const approvalRequirementsSchema = z.object({ requirements: z.array(approvalRequirementSchema) }).meta({ id: 'ApprovalRequirements' });

const configurationShape = {
  authorizationScopeId: z.string(),
  policyId: z.string(),
  policyVersion: z.string(),
  requirementId: z.string(),
  revision: z.number().int(),
  values: valuesSchema.describe('The stored values; {} after a reset'),
  updatedAt: z.string(),
  updatedBy: actorSchema,
};

export const approvalConfigurationSchema = z.object(configurationShape).meta({ id: 'ApprovalConfiguration' });

export const approvalConfigurationWriteSchema = z
  .object({ ...configurationShape, invalidatedCaseIds: z.array(z.string()).describe('Open cases this write invalidated (force: true); usually empty') })
  .meta({ id: 'ApprovalConfigurationWrite' });

export const effectiveRequirementSchema = z
  .object({
    authorizationScopeId: z.string(),
    ...requirementShape,
    stages: z.array(stageSchema).describe('requiredApprovals as configured (the default where not)'),
    values: valuesSchema.describe('Every declared key with the value in force'),
    configuration: z
      .object({ revision: z.number().int(), values: valuesSchema, updatedAt: z.string(), updatedBy: actorSchema })
      .nullable()
      .describe('null: never configured, the defaults apply'),
  })
  .meta({ id: 'EffectiveApprovalRequirement' });

export const approvalConfigurationHistorySchema = z
  .object({
    data: z.array(z.object({ revision: z.number().int(), values: valuesSchema, createdAt: z.string(), createdBy: actorSchema, requestId: z.string().nullable() })),
    pagination: z.object({ cursor: z.string().nullable(), hasMore: z.boolean(), limit: z.number().int() }),
  })
  .meta({ id: 'ApprovalConfigurationHistory' });


