/**
 * `permissions.policy.v1` documents: the zod schema (also exported as JSON Schema) and
 * `parsePolicyDocument`, which returns the typed document or every problem at its JSON path.
 * The shape is checked by zod; what depends on the selector's wallet type and a rule's actions
 * (fact catalog, value types, address and network formats) is checked afterwards, in one pass.
 * The documents in ../shared/spec/policy-examples/ are fixed points (see document.test.ts).
 */
import { z } from 'zod';
import { invalidRequest, type ApiError } from '../errors.ts';
import { walletTypes } from '../wallets/schemas.ts';
import { policyConditionLeaves, policyConditionLimits, policyOrderingOperators, policyConditionSchema, policySetOperators, type PolicyConditionLeaf } from './conditions.ts';
import {
  actionHasFact,
  actionHasMeter,
  policyActionsOf,
  policyActionNames,
  policyActions,
  policyFacts,
  policyValueProblem,
  type PolicyActionName,
  type PolicyWalletType,
} from './facts.ts';

export const policySchemaVersion = 'permissions.policy.v1';
export const policyLimits = { rules: 100, selectorValues: 1000, stages: 10 } as const;

const nameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { error: 'expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit' });

const setOf = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(policyLimits.selectorValues);

export const policySelectorSchema = z
  .strictObject({
    walletType: z.enum(walletTypes, {
      error: (issue) =>
        Array.isArray(issue.input)
          ? 'a policy selects exactly one wallet type; write one policy per wallet type'
          : 'expected one wallet type: EVM, COSMOS, SOLANA, STELLAR or SUI',
    }),
    chainId: setOf(z.string()).optional().describe("Set of networks in the wallet type's form (EVM: decimal chain id); omitted = every network"),
    walletId: setOf(z.uuid()).optional().describe('Set of wallet ids; omitted = every wallet of the type'),
    apiKeyId: setOf(z.uuid()).optional().describe('Set of API key ids; omitted = every key of the project and environment'),
  })
  .describe('Every field given must match; an omitted field adds no restriction');

const approvalStageSchema = z.strictObject({
  id: nameSchema,
  eligibility: z
    .strictObject({
      roles: z.array(nameSchema).min(1).max(20).optional().describe('Eligible: holds at least one of these roles in the scope'),
      attributes: z
        .record(nameSchema, z.array(nameSchema).min(1).max(20))
        .refine((a) => Object.keys(a).length >= 1 && Object.keys(a).length <= 10, { error: 'expected 1 to 10 attributes' })
        .optional()
        .describe('Eligible: for every attribute named, holds it with one of the listed values in the scope'),
    })
    .refine((e) => e.roles !== undefined || e.attributes !== undefined, { error: 'eligibility needs roles, attributes or both' })
    .describe('Who may approve the stage: roles and/or attributes assigned in the authorization scope (both given: both must hold)'),
  requiredApprovals: z.int().min(1).max(20),
  configurable: z
    .strictObject({ requiredApprovals: z.strictObject({ min: z.int().min(1).max(20), max: z.int().min(1).max(20) }).optional() })
    .optional(),
});

/** A stage's eligibility with both lists present (empty when the policy names none). */
export function eligibilityOf(eligibility: { roles?: string[] | undefined; attributes?: Record<string, string[]> | undefined }): { roles: string[]; attributes: Record<string, string[]> } {
  return { roles: [...(eligibility.roles ?? [])], attributes: Object.fromEntries(Object.entries(eligibility.attributes ?? {}).map(([k, v]) => [k, [...v]])) };
}

/** `expiresIn` of an approval requirement: a positive integer with m, h or d, at most 7 days. */
export const approvalExpiryPattern = /^([1-9]\d{0,5})(m|h|d)$/;
export const approvalExpiryDefault = '1h';
const approvalExpiryMaxMs = 7 * 24 * 60 * 60 * 1000;
const expiryUnitMs = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of an `expiresIn` value (undefined: the 1 h default); null when malformed or above 7 days. */
export function approvalExpiryMs(expiresIn: string | undefined): number | null {
  const match = approvalExpiryPattern.exec(expiresIn ?? approvalExpiryDefault);
  if (!match) return null;
  const ms = Number(match[1]) * expiryUnitMs[match[2] as keyof typeof expiryUnitMs];
  return ms <= approvalExpiryMaxMs ? ms : null;
}

export const policyApprovalRequirementSchema = z
  .strictObject({
    id: nameSchema,
    stages: z.array(approvalStageSchema).min(1).max(policyLimits.stages),
    expiresIn: z
      .string()
      .refine((v) => approvalExpiryMs(v) !== null, { error: 'expected a positive integer with m, h or d (e.g. "15m", "2h", "1d"), at most 7d' })
      .optional()
      .describe('How long a case stays open after it opens (pending, then completed until used); default "1h", at most "7d"'),
  })
  .describe('require_approval only: ordered stages of approvers (conditional approvals, issue #14)');

export const policyRuleSchema = z.strictObject({
  id: nameSchema,
  description: z.string().max(500).optional(),
  effect: z.enum(['deny', 'allow', 'require_approval']),
  actions: z.union([z.literal('all'), z.array(z.enum(policyActionNames)).min(1, { error: 'expected a non-empty array of actions, or "all"' })], {
    error: `expected "all" or a non-empty array of actions (${policyActionNames.join(', ')})`,
  }),
  condition: policyConditionSchema.optional().describe('Omitted: the rule always matches its actions'),
  approvalRequirement: policyApprovalRequirementSchema
    .optional()
    .describe('require_approval only: users approve in these stages (conditional approval). Omitted on a require_approval rule: a partner review (the app approves)'),
});

const datetime = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time with a time zone, e.g. 2026-01-01T00:00:00Z' });

const policyDocumentShape = z.strictObject({
  id: nameSchema.describe('Logical policy id, the same across versions'),
  schemaVersion: z.literal(policySchemaVersion),
  version: z.string().regex(/^[1-9]\d{0,9}$/, { error: 'expected a positive integer as a decimal string; the first version is "1"' }),
  selector: policySelectorSchema,
  metadata: z.strictObject({
    productMode: z
      .enum(['guardrail', 'delegation'], {
        error: 'expected "guardrail" (app-owned wallets) or "delegation" (user-owned, i.e. claimed, wallets; applies once the user consents)',
      })
      .describe('guardrail: app-owned wallets; delegation: user-owned wallets, with the user\'s consent and adjustable parameters'),
    description: z.string().max(500).optional(),
  }),
  effectiveFrom: datetime.optional(),
  effectiveUntil: datetime.optional(),
  rules: z.array(policyRuleSchema).min(1, { error: 'a policy needs at least one rule' }).max(policyLimits.rules),
});

export type PolicyDocument = z.output<typeof policyDocumentShape>;
export type PolicyRule = PolicyDocument['rules'][number];
export type PolicySelector = PolicyDocument['selector'];

export interface PolicyProblem {
  /** Dotted JSON path, e.g. `rules.0.condition.not.fact`; empty for the document itself. */
  path: string;
  message: string;
}

export const policyApprovalsUnavailableMessage =
  'require_approval needs conditional approvals (authorization scopes, roles and approval cases), which this service does not offer yet; use "deny" until they do';

export interface PolicyParseOptions {
  /**
   * false refuses `require_approval` rules at authoring. Default true: the schema accepts them so
   * that ../shared/spec/policy-examples/evm-approvals.json stays a fixed point.
   */
  approvals?: boolean;
}

type Path = (string | number)[];
type Report = (path: Path, message: string) => void;

/** Checks that need the wallet type and a rule's actions; `report` collects problems. */
function checkDocument(doc: PolicyDocument, report: Report, options: PolicyParseOptions): void {
  const walletType = doc.selector.walletType;
  checkSelector(doc.selector, report);
  if (doc.effectiveFrom && doc.effectiveUntil && Date.parse(doc.effectiveUntil) <= Date.parse(doc.effectiveFrom)) {
    report(['effectiveUntil'], 'must be later than effectiveFrom');
  }
  const seen = new Set<string>();
  const parameterIds = new Set<string>();
  doc.rules.forEach((rule, i) => {
    const at: Path = ['rules', i];
    if (seen.has(rule.id)) report([...at, 'id'], `duplicate rule id "${rule.id}"`);
    seen.add(rule.id);
    const actions = checkActions(rule, walletType, at, report);
    checkEffect(rule, doc, at, report, options);
    if (!rule.condition) return;
    const { leaves, depth } = policyConditionLeaves(rule.condition, [...at, 'condition']);
    if (depth > policyConditionLimits.depth) report([...at, 'condition'], `conditions nest at most ${policyConditionLimits.depth} levels deep`);
    for (const leaf of leaves) checkLeaf(leaf, walletType, actions, rule.actions === 'all', report);
    checkParameters(leaves, doc.metadata.productMode, parameterIds, report);
  });
}

/** Amount facts a `compare` parameter may adjust (aggregate parameters adjust any spend meter). */
export const parameterFacts: readonly string[] = ['request.value.baseUnits', 'request.token.value.baseUnits'];

/** `parameter` declarations: delegation policies only, amount limits only, min <= default <= max, ids unique in the policy. */
function checkParameters(leaves: PolicyConditionLeaf[], productMode: string, ids: Set<string>, report: Report): void {
  for (const leaf of leaves) {
    const parameter = leaf.condition.parameter;
    if (!parameter) continue;
    const at = [...leaf.path, 'parameter'];
    if (productMode !== 'delegation') {
      report(at, 'parameters (user-adjustable limits) are only for delegation policies: set metadata.productMode to "delegation"');
      continue;
    }
    if (leaf.kind === 'compare') {
      if (!parameterFacts.includes(leaf.condition.fact)) report([...at], `a parameter adjusts an amount limit: fact must be ${parameterFacts.join(' or ')}`);
      else if (!policyOrderingOperators.includes(leaf.condition.op)) report([...leaf.path, 'op'], 'a parameter adjusts a limit: op must be lt, lte, gt or gte');
    }
    if (ids.has(parameter.id)) report([...at, 'id'], `duplicate parameter id "${parameter.id}"; parameter ids are unique within a policy`);
    ids.add(parameter.id);
    const amount = (text: string | undefined) => (text !== undefined && /^(0|[1-9]\d*)$/.test(text) ? BigInt(text) : null);
    const value = leaf.condition.value;
    if (typeof value !== 'string' || amount(value) === null) continue;
    const min = amount(parameter.min);
    const max = amount(parameter.max);
    if (min !== null && max !== null && min > max) report(at, `min ${parameter.min} is above max ${parameter.max}`);
    else if ((min !== null && BigInt(value) < min) || (max !== null && BigInt(value) > max)) {
      report([...leaf.path, 'value'], `the default ${value} must lie within the parameter's min..max (${parameter.min ?? '0'}..${parameter.max ?? 'unbounded'})`);
    }
  }
}

function checkSelector(selector: PolicySelector, report: Report): void {
  for (const key of ['chainId', 'walletId', 'apiKeyId'] as const) {
    const values = selector[key];
    if (!values) continue;
    const seen = new Set<string>();
    values.forEach((value, j) => {
      const normalized = value.toLowerCase();
      if (seen.has(normalized)) report(['selector', key, j], `duplicate value "${value}"; ${key} is a set`);
      seen.add(normalized);
      if (key === 'chainId') {
        const problem = policyValueProblem('chainId', selector.walletType, value);
        if (problem) report(['selector', key, j], problem);
      }
    });
  }
}

/** The actions the rule covers on this wallet type, reporting unknown or foreign ones. */
function checkActions(rule: PolicyRule, walletType: PolicyWalletType, at: Path, report: Report): PolicyActionName[] {
  if (rule.actions === 'all') return policyActionsOf(walletType);
  const own = policyActionsOf(walletType);
  const seen = new Set<string>();
  rule.actions.forEach((action, j) => {
    if (seen.has(action)) report([...at, 'actions', j], `duplicate action "${action}"`);
    seen.add(action);
    if (!own.includes(action)) report([...at, 'actions', j], `${action} is not an action of ${walletType} wallets (they have: ${own.join(', ')})`);
  });
  return rule.actions.filter((a) => own.includes(a));
}

function checkEffect(rule: PolicyRule, doc: PolicyDocument, at: Path, report: Report, options: PolicyParseOptions): void {
  if (rule.effect === 'require_approval') {
    if (options.approvals === false) report([...at, 'effect'], policyApprovalsUnavailableMessage);
  } else if (rule.approvalRequirement) {
    report([...at, 'approvalRequirement'], 'only a require_approval rule carries an approvalRequirement');
  }
  if (rule.effect === 'allow' && (rule.actions === 'all' || rule.actions.some((a) => a !== 'raw_signature'))) {
    report(
      [...at, 'actions'],
      'in a guardrail policy "allow" only lifts the default denial of raw signatures: its actions must be ["raw_signature"] (everything else is allowed unless a rule denies it)',
    );
  }
  const namesRaw = rule.actions !== 'all' && rule.actions.includes('raw_signature');
  if (namesRaw && doc.selector.chainId && doc.selector.walletType !== 'COSMOS') {
    report([...at, 'actions'], 'raw signatures carry no network, so a policy whose selector names chainId never applies to them; remove selector.chainId or raw_signature');
  }
  rule.approvalRequirement?.stages.forEach((stage, j) => {
    const range = stage.configurable?.requiredApprovals;
    if (range && (range.min > range.max || stage.requiredApprovals < range.min || stage.requiredApprovals > range.max)) {
      report([...at, 'approvalRequirement', 'stages', j, 'configurable', 'requiredApprovals'], 'expected min <= requiredApprovals <= max');
    }
    if (rule.approvalRequirement?.stages.findIndex((s) => s.id === stage.id) !== j) {
      report([...at, 'approvalRequirement', 'stages', j, 'id'], `duplicate stage id "${stage.id}"`);
    }
  });
}

function checkLeaf(leaf: PolicyConditionLeaf, walletType: PolicyWalletType, actions: PolicyActionName[], all: boolean, report: Report): void {
  // Under "all" a fact must exist for some action of the wallet type; named actions must all carry it.
  const covered = (has: (action: PolicyActionName) => boolean, what: string) => {
    const missing = actions.filter((a) => !has(a));
    if (all ? missing.length < actions.length : missing.length === 0) return null;
    return all ? `${what} is not available for any action of ${walletType} wallets` : `${what} is not available for action ${missing.join(', ')} on ${walletType} wallets`;
  };
  if (leaf.kind === 'aggregate') {
    const { aggregate, value } = leaf.condition;
    const problem = covered((a) => actionHasMeter(walletType, a, aggregate.meter), `meter ${aggregate.meter}`);
    if (problem) report([...leaf.path, 'aggregate', 'meter'], `${problem}; spend meters count ${meteredActions(walletType)}`);
    else if (aggregate.asset != null) {
      if (aggregate.meter !== 'spend.token') report([...leaf.path, 'aggregate', 'asset'], 'only a spend.token meter names an asset');
      else {
        const assetProblem = policyValueProblem('asset', walletType, aggregate.asset);
        if (assetProblem) report([...leaf.path, 'aggregate', 'asset'], assetProblem);
      }
    }
    const valueError = policyValueProblem('uint', walletType, value);
    if (valueError) report([...leaf.path, 'value'], valueError);
    return;
  }
  const { fact, op, value } = leaf.condition;
  const problem = covered((a) => actionHasFact(walletType, a, fact), `fact ${fact}`);
  if (problem) {
    report([...leaf.path, 'fact'], problem);
    return;
  }
  const type = policyFacts[fact].type;
  if (policyOrderingOperators.includes(op) && type !== 'uint') report([...leaf.path, 'op'], `${op} compares amounts; ${fact} (${type}) takes eq, ne, in or nin`);
  const isSet = policySetOperators.includes(op);
  if (isSet !== Array.isArray(value)) {
    report([...leaf.path, 'value'], isSet ? `${op} expects a non-empty array of values` : `${op} expects a single value, not an array`);
    return;
  }
  const values = Array.isArray(value) ? value : [value];
  values.forEach((v, k) => {
    const valueError = policyValueProblem(type, walletType, v);
    if (valueError) report(Array.isArray(value) ? [...leaf.path, 'value', k] : [...leaf.path, 'value'], `${fact}: ${valueError}`);
  });
}

function meteredActions(walletType: PolicyWalletType): string {
  return policyActionsOf(walletType)
    .filter((a) => policyActions[a].metered)
    .join(', ');
}

function documentSchema(options: PolicyParseOptions) {
  return policyDocumentShape.superRefine((doc, ctx) =>
    checkDocument(doc, (path, message) => ctx.addIssue({ code: 'custom', path, message }), options),
  );
}

/**
 * The `permissions.policy.v1` schema: shape and catalog checks together (the catalog checks run
 * when the shape has no type errors, so a document shows its shape problems first).
 */
export const policyDocumentSchema = documentSchema({}).meta({ id: 'PermissionsPolicyV1' });

/** zod issues as `{path, message}` problems; an unknown key is reported at its own path. */
export function policyProblems(error: z.ZodError): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const add = (issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[]) => {
    for (const issue of issues) {
      const path = [...prefix, ...issue.path].map(String);
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) problems.push({ path: [...path, key].join('.'), message: `unknown key "${key}"` });
      } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
        // A condition fails every branch of its union: report the branch it came closest to
        // (fewest issues), so `{fact, op, value: 5}` points at `value`, not at the condition.
        const sizes = issue.errors.map((branch) => branch.length);
        const best = Math.min(...sizes);
        const closest = issue.errors.filter((branch) => branch.length === best);
        if (closest.length === 1 && closest[0]) add(closest[0], [...prefix, ...issue.path]);
        else problems.push({ path: path.join('.'), message: issue.message });
      } else {
        problems.push({ path: path.join('.'), message: issue.message });
      }
    }
  };
  add(error.issues, []);
  return problems.slice(0, 50);
}

export type PolicyParseResult = { ok: true; document: PolicyDocument } | { ok: false; problems: PolicyProblem[] };

/** Parses a policy document: the typed document, or every problem with its JSON path. */
export function parsePolicyDocument(input: unknown, options: PolicyParseOptions = {}): PolicyParseResult {
  const schema = options.approvals === false ? documentSchema(options) : policyDocumentSchema;
  const result = schema.safeParse(input);
  return result.success ? { ok: true, document: result.data } : { ok: false, problems: policyProblems(result.error) };
}

/** 400 INVALID_REQUEST for a refused document, with `details` in the shape every zod refusal uses. */
export function policyDocumentError(problems: PolicyProblem[]): ApiError {
  const first = problems[0];
  const message = first ? `Invalid policy: ${first.path ? `${first.path}: ` : ''}${first.message}` : 'Invalid policy';
  return invalidRequest(message, { details: problems });
}

/** The document schema as JSON Schema (draft 2020-12), for the console, the CLI and partners' editors. */
export function policyDocumentJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(policyDocumentSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}
