import { z } from 'zod';

/** Partner-chosen scope ids (e.g. one per customer organisation); the same form the tables CHECK. */
export const scopeIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;
export const scopeIdSchema = z.string().regex(scopeIdPattern, { error: 'expected 1-128 characters of A-Z a-z 0-9 . _ : -' });

const MAX_ASSIGNMENTS = 100;

// Para trims names, ids and attribute values and allows 1-64 characters (permissions-notes 1.5).
const name = z
  .string({ error: 'expected a string' })
  .trim()
  .min(1, { error: 'expected 1-64 characters after trimming' })
  .max(64, { error: 'expected 1-64 characters after trimming' })
  .refine((s) => !/\p{Cc}/u.test(s), { error: 'control characters are not allowed' });

/** `{role}` or `{attribute, value}`: exactly one form, no other keys. */
export const assignmentSchema = z
  .strictObject({ role: name.optional(), attribute: name.optional(), value: name.optional() })
  .superRefine((a, ctx) => {
    const isRole = a.role !== undefined && a.attribute === undefined && a.value === undefined;
    const isAttribute = a.role === undefined && a.attribute !== undefined && a.value !== undefined;
    if (!isRole && !isAttribute) ctx.addIssue({ code: 'custom', message: 'expected {"role": name} or {"attribute": name, "value": value}' });
  })
  .transform((a) => (a.role !== undefined ? { role: a.role } : { attribute: a.attribute!, value: a.value! }))
  .meta({ id: 'AuthorizationScopeAssignment', description: '{"role": "finance"} or {"attribute": "region", "value": "eu"}; names and values are trimmed, 1-64 characters' });

const assignmentKey = (a: { role: string } | { attribute: string; value: string }) => ('role' in a ? `role\u0000${a.role}` : `attr\u0000${a.attribute}\u0000${a.value}`);

// Missing `expectedRevision` is answered by the service with 409 and the current revision (what to send).
const expectedRevision = z
  .number({ error: 'expected an integer (0 before the first write)' })
  .int({ error: 'expected an integer (0 before the first write)' })
  .min(0, { error: 'expected 0 or more' })
  .optional()
  .describe('Required: the revision this write replaces (0 before the first write, then the revision last read); missing or not current = 409 CONFLICT with currentRevision');

export const replaceAssignmentsBody = z
  .strictObject({
    expectedRevision,
    assignments: z
      .array(assignmentSchema, { error: 'expected an array (empty removes every assignment)' })
      .max(MAX_ASSIGNMENTS, { error: `at most ${MAX_ASSIGNMENTS} assignments` })
      .superRefine((list, ctx) => {
        const seen = new Map<string, number>();
        list.forEach((a, i) => {
          const first = seen.get(assignmentKey(a));
          if (first !== undefined) ctx.addIssue({ code: 'custom', path: [i], message: `duplicates assignments.${first}` });
          else seen.set(assignmentKey(a), i);
        });
      }),
  })
  .meta({ id: 'ReplaceAssignmentsBody' });

export const bindWalletBody = z
  .strictObject({
    expectedRevision,
    authorizationScopeId: scopeIdSchema.nullable().describe('The scope to bind; null unbinds the wallet'),
  })
  .meta({ id: 'BindWalletScopeBody' });

export const revisionListQuery = z.strictObject({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

const actorSchema = z.object({ type: z.enum(['api_key', 'staff', 'operator']), id: z.string().nullable() });
const pagination = z.object({ cursor: z.string().nullable(), hasMore: z.boolean(), limit: z.number().int() });
const assignmentView = z.union([z.object({ role: z.string() }), z.object({ attribute: z.string(), value: z.string() })]);

export const assignmentSetSchema = z
  .object({
    authorizationScopeId: z.string(),
    userId: z.string(),
    revision: z.number().int().describe('0 before the first write'),
    assignments: z.array(assignmentView),
    updatedAt: z.string().nullable(),
  })
  .meta({ id: 'AuthorizationScopeAssignments' });

export const assignmentHistorySchema = z
  .object({
    data: z.array(z.object({ revision: z.number().int(), assignments: z.array(assignmentView), createdAt: z.string(), createdBy: actorSchema, requestId: z.string().nullable() })),
    pagination,
  })
  .meta({ id: 'AuthorizationScopeAssignmentHistory' });

export const membersSchema = z
  .object({
    authorizationScopeId: z.string(),
    data: z.array(z.object({ userId: z.string(), revision: z.number().int(), assignments: z.array(assignmentView), updatedAt: z.string() })),
    pagination,
  })
  .meta({ id: 'AuthorizationScopeMembers' });

export const walletScopeSchema = z
  .object({
    walletId: z.string(),
    authorizationScopeId: z.string().nullable().describe('null: not bound'),
    revision: z.number().int().describe('0 before the first write'),
    updatedAt: z.string().nullable(),
  })
  .meta({ id: 'WalletAuthorizationScope' });

export const walletScopeHistorySchema = z
  .object({
    data: z.array(z.object({ revision: z.number().int(), authorizationScopeId: z.string().nullable(), createdAt: z.string(), createdBy: actorSchema, requestId: z.string().nullable() })),
    pagination,
  })
  .meta({ id: 'WalletAuthorizationScopeHistory' });
