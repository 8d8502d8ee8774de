/**
 * Inputs of the console's policy procedures (tRPC parses with these; the console builds them).
 * Ids are plain strings: a malformed project or policy id is answered like a missing one (404).
 * Documents are `unknown` here: `parsePolicyDocument` judges them and reports problems at paths.
 */
import { z } from 'zod';
import { environments } from '../api-keys/plans.ts';

const id = z.string().trim().min(1).max(100);

/** A project and one of its environments (development and production never share a policy). */
export const policyLocationInput = z.strictObject({ projectId: id, environment: z.enum(environments) });
export const policyIdInput = policyLocationInput.extend({ policyId: id });
export const policyApplyInput = policyLocationInput.extend({ document: z.unknown() });
export const policyValidateInput = z.strictObject({ document: z.unknown() });
