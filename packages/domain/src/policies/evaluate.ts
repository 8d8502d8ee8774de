/**
 * Policy evaluation, pure: which policies apply to a request, which spend meters it charges, and
 * the decision with its trace. Conditions are tri-state (true, false, undecidable); a deny rule
 * whose condition cannot be decided denies (fail closed). The engine (engine.ts) feeds it stored
 * policies and meter values (with the ranges in which its decision holds, for the reserving
 * statement to check); the dry run feeds it the same and reserves nothing.
 */
import type { Environment } from '../ports.ts';
import type { PolicyDocument } from './document.ts';
import type { CompiledCondition, CompiledPolicy, CompiledRule } from './compile.ts';
import { aggregatesOf, normalizeValue } from './compile.ts';
import type { MeterBound, MeterCharge, MeterKey, RequestFacts, RequestLeg } from './evaluation-types.ts';
import { meterKeyId } from './evaluation-types.ts';
import { policyFacts, type PolicyFactName } from './facts.ts';

type Tri = boolean | undefined;

/** Why a request was denied, as `deniedBy` entries carry it. */
export type DenialReason = 'rule-matched' | 'spend-limit-exceeded' | 'condition-undecidable' | 'approval-not-available' | 'raw-signature-not-allowed';

export interface Denial {
  reason: DenialReason;
  policyId?: string;
  policyVersion?: string;
  ruleId?: string;
}

/** One aggregate condition as a rule saw it: the meter, its value before and after this request, the limit. */
export interface MeterTrace {
  meter: string;
  asset: string;
  window: string;
  windowStart: string;
  windowEnd: string;
  before: string;
  after: string;
  op: string;
  limit: string;
}

export interface RuleTrace {
  ruleId: string;
  effect: CompiledRule['effect'];
  /** `not-covered`: the rule does not judge this action. */
  outcome: 'matched' | 'not-matched' | 'undecidable' | 'not-covered';
  /** Facts the rule read, as the request carried them (null = undecidable), per leg judged. */
  facts: Record<string, string | null>[];
  meters: MeterTrace[];
}

export interface PolicyTrace {
  policyId: string;
  policyVersion: string;
  rules: RuleTrace[];
}

/** What a partner review (a require_approval rule without approvalRequirement) matches as: no user stage, 5 minutes. */
export const partnerReviewRequirementId = 'partner-review';
export const partnerReviewExpiresInMs = 5 * 60_000;

/**
 * A require_approval rule that matched (or could not be decided: fail closed), with its
 * requirement; a partner review has `requirementId` "partner-review" and no stages.
 */
export interface ApprovalMatch {
  policyId: string;
  policyVersion: string;
  ruleId: string;
  requirementId: string;
  stages: { id: string; roles: string[]; attributes: Record<string, string[]>; requiredApprovals: number }[];
  expiresInMs: number;
}

export interface Evaluation {
  /** No rule denies (the request may still need approvals: `approvals`). */
  allowed: boolean;
  deniedBy: Denial[];
  /**
   * Every require_approval rule that matched, in policy and rule order (a denial still wins):
   * partner reviews always; rules with an approvalRequirement only with `approvals: 'review'`
   * (with `'deny'`, the extension is off, they deny instead).
   */
  approvals: ApprovalMatch[];
  /** Filled only when asked for (dry runs): every applying policy and rule with its outcome. */
  trace: PolicyTrace[];
}

export interface EvaluationContext {
  projectId: string;
  environment: Environment;
  now: Date;
}

const holds = (p: CompiledPolicy, at: number) => (p.effectiveFrom === null || p.effectiveFrom <= at) && (p.effectiveUntil === null || at < p.effectiveUntil);

/** Actions whose bytes never name a network (spec: only policies without chainId govern raw signatures). */
const networkless = new Set(['raw_signature', 'sign_message']);

/**
 * Policies whose selector and effective window hold this request. A transaction whose network is
 * not proven (a Solana sign-transaction body without `network`, any Sui transaction: the bytes
 * are valid on every cluster) is judged by the policies of every network (fail closed), not by none.
 */
export function applyingPolicies(policies: CompiledPolicy[], facts: RequestFacts, now: Date): CompiledPolicy[] {
  const at = now.getTime();
  const network = facts.network?.toLowerCase() ?? null;
  const anyNetwork = network === null && !networkless.has(facts.action);
  return policies.filter(
    (p) =>
      p.walletType === facts.walletType &&
      holds(p, at) &&
      (p.networks === null || anyNetwork || (network !== null && p.networks.has(network))) &&
      (p.walletIds === null || p.walletIds.has(facts.walletId.toLowerCase())) &&
      (p.apiKeyIds === null || p.apiKeyIds.has(facts.apiKeyId.toLowerCase())),
  );
}

/**
 * Whether a policy's selector takes a wallet: its wallet type, and its wallet set when it names one.
 * Networks and API keys are per request (`applyingPolicies`); the wallet page lists these.
 */
export const selectorTakesWallet = (policy: { walletType: string; document: Pick<PolicyDocument, 'selector'> }, wallet: { id: string; type: string }) =>
  policy.walletType === wallet.type && (!policy.document.selector.walletId || policy.document.selector.walletId.some((id) => id.toLowerCase() === wallet.id.toLowerCase()));

/** The policies whose effective window holds `now` (from inclusive, until exclusive). */
export function inWindow(policies: CompiledPolicy[], now: Date): CompiledPolicy[] {
  const at = now.getTime();
  return policies.filter((p) => holds(p, at));
}

/** Permissions are on for a project and environment once it has an active policy within its window. */
export function permissionsOn(policies: CompiledPolicy[], now: Date): boolean {
  const at = now.getTime();
  return policies.some((p) => holds(p, at));
}

function windowStart(windowMs: number, now: Date): Date {
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs);
}

/** The request's decoded total of an asset (undecoded amounts count nothing: spec rule 7). */
function totalOf(legs: RequestLeg[], asset: string): bigint {
  let total = 0n;
  for (const leg of legs) if (leg.asset === asset && leg.amount !== null) total += leg.amount;
  return total;
}

/**
 * The asset an aggregate condition meters for a leg: null when it meters no asset of this request
 * (a per-asset token meter on a native leg), undefined when the leg's asset is not decodable.
 */
function meteredAsset(condition: Extract<CompiledCondition, { kind: 'aggregate' }>, leg: RequestLeg | null): string | null | undefined {
  if (condition.meter === 'spend.native') return 'native';
  if (condition.asset !== null) return condition.asset;
  if (!leg || leg.asset === 'native') return null;
  return leg.asset ?? undefined;
}

function meterKey(condition: Extract<CompiledCondition, { kind: 'aggregate' }>, asset: string, facts: RequestFacts, context: EvaluationContext): MeterKey | null {
  if (facts.network === null) return null;
  return {
    projectId: context.projectId,
    environment: context.environment,
    apiKeyId: facts.apiKeyId,
    walletId: facts.walletId,
    network: facts.network.toLowerCase(),
    asset,
    windowMs: condition.windowMs,
    windowStart: windowStart(condition.windowMs, context.now),
  };
}

/** The request's total of an asset as a fact: undecidable when some leg of it has no decoded amount. */
function factTotal(legs: RequestLeg[], asset: string): string | undefined {
  return legs.some((l) => l.asset === asset && l.amount === null) ? undefined : totalOf(legs, asset).toString();
}

const legsOf = (facts: RequestFacts): (RequestLeg | null)[] => (facts.legs.length > 0 ? facts.legs : [null]);
const covers = (rule: CompiledRule, facts: RequestFacts) => rule.actions.has(facts.action);

/** Calls `visit` for every spend meter an applying rule covering the action reads, per leg. */
function eachMeterRead(
  policies: CompiledPolicy[],
  facts: RequestFacts,
  context: EvaluationContext,
  visit: (condition: Extract<CompiledCondition, { kind: 'aggregate' }>, asset: string, key: MeterKey) => void,
): void {
  for (const policy of policies) {
    for (const rule of policy.rules) {
      if (!rule.hasAggregate || !covers(rule, facts)) continue;
      for (const condition of aggregatesOf(rule.condition)) {
        for (const leg of legsOf(facts)) {
          const asset = meteredAsset(condition, leg);
          const key = asset == null ? null : meterKey(condition, asset, facts, context);
          if (key && asset != null) visit(condition, asset, key);
        }
      }
    }
  }
}

/**
 * The meters the applying rules read, each once, with what this request adds to it (its decoded
 * total of the meter's asset; 0 for a meter it only reads).
 */
export function meterChargesOf(policies: CompiledPolicy[], facts: RequestFacts, context: EvaluationContext): MeterCharge[] {
  const charges = new Map<string, MeterCharge>();
  eachMeterRead(policies, facts, context, (_condition, asset, key) => {
    const id = meterKeyId(key);
    if (!charges.has(id)) charges.set(id, { key, amount: totalOf(facts.legs, asset) });
  });
  return [...charges.values()];
}

/**
 * For each meter the applying rules read: the range of its total (spent + reserved, before this
 * request) in which every aggregate condition on it keeps the value it has at `meters`. The
 * decision depends on meters only through those conditions, so it is the same anywhere inside
 * the ranges: the meter store checks them in the statement that reserves (no lock is held
 * between reading and deciding) and decides again when a meter has moved out of its range.
 */
export function meterBounds(policies: CompiledPolicy[], facts: RequestFacts, meters: Map<string, bigint>, context: EvaluationContext): Map<string, MeterBound> {
  const bounds = new Map<string, MeterBound>();
  eachMeterRead(policies, facts, context, (condition, asset, key) => {
    const id = meterKeyId(key);
    const total = meters.get(id);
    if (total === undefined) return;
    // The condition compares total + charge with the limit: it holds exactly when total >= cut
    // (gt, gte), or exactly when total < cut (lt, lte, their negations).
    const charge = totalOf(facts.legs, asset);
    const cut = condition.op === 'gt' || condition.op === 'lte' ? condition.limit - charge + 1n : condition.limit - charge;
    const bound = bounds.get(id) ?? { min: null, max: null };
    if (total < cut) bound.max = bound.max === null || cut - 1n < bound.max ? cut - 1n : bound.max;
    else bound.min = bound.min === null || cut > bound.min ? cut : bound.min;
    bounds.set(id, bound);
  });
  return bounds;
}

/** A fact with no value by the request's nature (a native leg's token): equal to nothing, amount 0. */
const NONE = Symbol('none');
type FactValue = string | typeof NONE | undefined;

function factValue(fact: PolicyFactName, facts: RequestFacts, leg: RequestLeg | null): FactValue {
  const byNature = (value: string | undefined): FactValue => (value !== undefined ? value : facts.undecoded === null ? NONE : undefined);
  switch (fact) {
    case 'wallet.id':
      return facts.walletId;
    case 'request.chainId':
      return facts.network ?? facts.facts['request.chainId'];
    case 'request.to':
      return leg?.to ?? facts.facts['request.to'];
    case 'request.token.address':
      if (leg) return leg.asset === 'native' ? NONE : (leg.asset ?? undefined);
      return byNature(facts.facts['request.token.address']);
    case 'request.token.value.baseUnits':
      if (leg) return leg.asset === 'native' ? NONE : leg.asset === null ? undefined : factTotal(facts.legs, leg.asset);
      return byNature(facts.facts['request.token.value.baseUnits']);
    case 'request.value.baseUnits':
      return facts.facts['request.value.baseUnits'] ?? (facts.legs.length > 0 || facts.undecoded === null ? factTotal(facts.legs, 'native') : undefined);
    default:
      return facts.facts[fact];
  }
}

const compareOrder = (a: bigint, op: 'lt' | 'lte' | 'gt' | 'gte', b: bigint) => (op === 'lt' ? a < b : op === 'lte' ? a <= b : op === 'gt' ? a > b : a >= b);

interface Judging {
  facts: RequestFacts;
  leg: RequestLeg | null;
  /** Each meter's total (spent + held), by meter id. */
  meters: Map<string, bigint>;
  context: EvaluationContext;
  walletType: CompiledPolicy['walletType'];
  /** Collected for traces only. */
  seen?: Record<string, string | null>;
  meterTraces?: MeterTrace[];
}

function judge(condition: CompiledCondition, j: Judging): Tri {
  switch (condition.kind) {
    case 'all': {
      let result: Tri = true;
      for (const child of condition.children) {
        const r = judge(child, j);
        if (r === false) return false;
        if (r === undefined) result = undefined;
      }
      return result;
    }
    case 'any': {
      let result: Tri = false;
      for (const child of condition.children) {
        const r = judge(child, j);
        if (r === true) return true;
        if (r === undefined) result = undefined;
      }
      return result;
    }
    case 'not': {
      const r = judge(condition.child, j);
      return r === undefined ? undefined : !r;
    }
    case 'aggregate':
      return judgeAggregate(condition, j);
    default:
      return judgeFact(condition, j);
  }
}

function judgeFact(condition: Extract<CompiledCondition, { kind: 'compare' | 'order' }>, j: Judging): Tri {
  const raw = factValue(condition.fact, j.facts, j.leg);
  if (j.seen) j.seen[condition.fact] = raw === undefined ? null : raw === NONE ? 'none' : raw;
  if (raw === undefined) return undefined;
  const type = policyFacts[condition.fact].type;
  if (condition.kind === 'order') return compareOrder(raw === NONE ? 0n : BigInt(raw), condition.op, condition.value);
  const value = raw === NONE ? null : type === 'uint' ? BigInt(raw).toString() : normalizeValue(type, j.walletType, raw);
  const member = value !== null && condition.values.has(value);
  return condition.op === 'eq' || condition.op === 'in' ? member : !member;
}

function judgeAggregate(condition: Extract<CompiledCondition, { kind: 'aggregate' }>, j: Judging): Tri {
  const asset = meteredAsset(condition, j.leg);
  if (asset === null) return false;
  if (asset === undefined) return undefined;
  const key = meterKey(condition, asset, j.facts, j.context);
  const before = key ? j.meters.get(meterKeyId(key)) : undefined;
  if (!key || before === undefined) return undefined;
  const after = before + totalOf(j.facts.legs, asset);
  j.meterTraces?.push({
    meter: condition.meter,
    asset,
    window: condition.window,
    windowStart: key.windowStart.toISOString(),
    windowEnd: new Date(key.windowStart.getTime() + condition.windowMs).toISOString(),
    before: before.toString(),
    after: after.toString(),
    op: condition.op,
    limit: condition.limit.toString(),
  });
  return compareOrder(after, condition.op, condition.limit);
}

/** A rule over every leg: matched when some leg matches, undecidable when none does but some cannot be decided. */
function judgeRule(rule: CompiledRule, policy: CompiledPolicy, facts: RequestFacts, meters: Map<string, bigint>, context: EvaluationContext, trace: RuleTrace | null): Tri {
  if (!rule.condition) return true;
  let result: Tri = false;
  for (const leg of legsOf(facts)) {
    const j: Judging = { facts, leg, meters, context, walletType: policy.walletType };
    if (trace) {
      j.seen = {};
      j.meterTraces = trace.meters;
      trace.facts.push(j.seen);
    }
    const r = judge(rule.condition, j);
    if (r === true) {
      result = true;
      if (!trace) break;
    } else if (r === undefined && result === false) result = undefined;
  }
  return result;
}

function denialOf(rule: CompiledRule, policy: CompiledPolicy, matched: Tri): Denial {
  const reason: DenialReason =
    rule.effect === 'require_approval' ? 'approval-not-available' : matched === undefined ? 'condition-undecidable' : rule.hasAggregate ? 'spend-limit-exceeded' : 'rule-matched';
  return { reason, policyId: policy.policyId, policyVersion: String(policy.version), ruleId: rule.id };
}

/**
 * The decision on a request: every deny rule that matches or cannot be decided denies (all are
 * listed); a raw signature needs an allow rule that matches while permissions are on. A
 * require_approval rule with an approvalRequirement that matches or cannot be decided denies with
 * `approval-not-available` (`approvals: 'deny'`, the default) or is returned in `approvals`
 * (`'review'`); one without (a partner review) is always returned in `approvals`.
 * `permissionsAreOn` is `permissionsOn(all active policies of the project and environment)`.
 */
export function evaluatePolicies(
  policies: CompiledPolicy[],
  facts: RequestFacts,
  meters: Map<string, bigint>,
  context: EvaluationContext,
  options: { permissionsAreOn: boolean; trace?: boolean; approvals?: 'deny' | 'review' },
): Evaluation {
  const deniedBy: Denial[] = [];
  const approvals: ApprovalMatch[] = [];
  const trace: PolicyTrace[] = [];
  let rawAllowed = false;
  for (const policy of policies) {
    const policyTrace: PolicyTrace | null = options.trace ? { policyId: policy.policyId, policyVersion: String(policy.version), rules: [] } : null;
    if (policyTrace) trace.push(policyTrace);
    for (const rule of policy.rules) {
      const ruleTrace: RuleTrace | null = policyTrace ? { ruleId: rule.id, effect: rule.effect, outcome: 'not-covered', facts: [], meters: [] } : null;
      if (ruleTrace) policyTrace!.rules.push(ruleTrace);
      if (!covers(rule, facts)) continue;
      const matched = judgeRule(rule, policy, facts, meters, context, ruleTrace);
      if (ruleTrace) ruleTrace.outcome = matched === true ? 'matched' : matched === false ? 'not-matched' : 'undecidable';
      if (rule.effect === 'allow') {
        if (matched === true && facts.action === 'raw_signature') rawAllowed = true;
      } else if (matched !== false && rule.effect === 'require_approval' && !rule.approval) {
        const ref = { policyId: policy.policyId, policyVersion: String(policy.version), ruleId: rule.id };
        approvals.push({ ...ref, requirementId: partnerReviewRequirementId, stages: [], expiresInMs: partnerReviewExpiresInMs });
      } else if (matched !== false && rule.effect === 'require_approval' && options.approvals === 'review') {
        approvals.push({ policyId: policy.policyId, policyVersion: String(policy.version), ruleId: rule.id, ...rule.approval! });
      } else if (matched !== false) {
        deniedBy.push(denialOf(rule, policy, matched));
      }
    }
  }
  if (facts.action === 'raw_signature' && options.permissionsAreOn && !rawAllowed) deniedBy.push({ reason: 'raw-signature-not-allowed' });
  return { allowed: deniedBy.length === 0, deniedBy, approvals: deniedBy.length === 0 ? approvals : [], trace };
}
