import { z } from 'zod';
import { policyStatuses } from './ports.ts';

/** Response shapes of the policy read routes (for the OpenAPI document; the views are built in service.ts). */
const policyActorSchema = z.object({ type: z.enum(['api_key', 'staff', 'operator']), id: z.string().nullable() });

export const policyViewSchema = z
  .object({
    policyId: z.string(),
    version: z.string().describe('Decimal string; the version the service gave this definition'),
    status: z.enum(policyStatuses),
    environment: z.enum(['development', 'production']),
    walletType: z.enum(['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI']),
    effectiveFrom: z.string().nullable(),
    effectiveUntil: z.string().nullable(),
    createdAt: z.string(),
    createdBy: policyActorSchema,
    deactivatedAt: z.string().nullable(),
    deactivatedBy: policyActorSchema.nullable(),
    replacedBy: z.string().nullable(),
    definition: z.record(z.string(), z.unknown()).describe('The permissions.policy.v1 document as stored'),
  })
  .meta({ id: 'Policy' });

export const policyListSchema = z.object({ policies: z.array(policyViewSchema) });
export const policyVersionsSchema = z.object({ versions: z.array(policyViewSchema) });
