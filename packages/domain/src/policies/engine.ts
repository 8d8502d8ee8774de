/**
 * The signing pipeline's policy stage: loads the project's active policies, decodes the request
 * once, and decides — when a rule reads a spend meter, through the meter store, which reserves
 * this request's spend only if the meters are still where the decision saw them (so concurrent
 * requests never overshoot).
 * `explain` is the dry run: the same decision with a trace, reading meters without reserving.
 */
import type { ApprovalRequirementRef, PolicyDecision, PolicyEngine, SigningContext } from '../signing/pipeline.ts';
import type { Clock } from '../shared/clock.ts';
import { compilePolicy, type CompiledPolicy } from './compile.ts';
import { applyingPolicies, evaluatePolicies, type ApprovalMatch, inWindow, meterBounds, meterChargesOf, type Denial, type Evaluation, type EvaluationContext, type PolicyTrace } from './evaluate.ts';
import { meterKeyId, type MeterStore, type RequestFacts } from './evaluation-types.ts';
import type { PolicyLocation, PolicyStore } from './ports.ts';
import { requestFactsOf } from './request-facts.ts';
import { batchCharges, judgeBatch, prepareCalls, withoutCharges } from './batch.ts';

export interface PolicyEngineDeps {
  store: Pick<PolicyStore, 'listAllActive' | 'activeStamp'>;
  meters: MeterStore;
  clock: Clock;
  /**
   * Whether conditional approvals can open cases here (the permissions v2 extension is enabled).
   * Asked only when an applying require_approval rule with an approvalRequirement covers the
   * request; absent or false: such a rule denies with `approval-not-available`. Partner reviews
   * (no approvalRequirement) do not depend on it.
   */
  approvalsAvailable?(location: PolicyLocation): Promise<boolean>;
}

/** The dry run's answer: the decision, what the request was decoded as, and every applying rule. */
export interface PolicyExplanation {
  decision: 'allow' | 'deny' | 'review_required';
  reason: string | null;
  deniedBy: Denial[];
  /** `review_required`: the requirements a case would gate (policy, version, rule, requirement id). */
  requirements: ApprovalRequirementRef[];
  request: Omit<RequestFacts, 'legs'> & { legs: { to: string | null; asset: string | null; amount: string | null }[] };
  policies: PolicyTrace[];
  /** A batch of calls: each call's own decision, request and trace, in order (the top level is the batch's). */
  calls?: Omit<PolicyExplanation, 'calls' | 'requirements'>[];
}

const legsView = (facts: RequestFacts): PolicyExplanation['request'] => ({ ...facts, legs: facts.legs.map((l) => ({ to: l.to, asset: l.asset, amount: l.amount === null ? null : l.amount.toString() })) });

const maxSnapshots = 10_000;

export function denialMessage(deniedBy: Denial[]): string {
  const first = deniedBy[0];
  if (!first) return 'The request was denied by a policy';
  if (first.reason === 'raw-signature-not-allowed') return 'Raw signatures are denied while permissions are on; no active policy allows raw_signature for this wallet';
  const more = deniedBy.length > 1 ? ` (and ${deniedBy.length - 1} more)` : '';
  return `Denied by policy ${first.policyId} version ${first.policyVersion}, rule ${first.ruleId}: ${first.reason}${more}`;
}

/** The reference of a matched requirement, as cases store it. */
export const requirementRef = (a: ApprovalRequirementRef): ApprovalRequirementRef => ({ policyId: a.policyId, policyVersion: a.policyVersion, ruleId: a.ruleId, requirementId: a.requirementId });
export const requirementKey = (a: ApprovalRequirementRef) => [a.policyId, a.policyVersion, a.ruleId, a.requirementId].join('|');

export function createPolicyEngine({ store, meters, clock, approvalsAvailable }: PolicyEngineDeps): PolicyEngine & { explain(context: SigningContext): Promise<PolicyExplanation> } {
  // Each process keeps the compiled active policies of a project and environment until the
  // store's stamp moves (PostgreSQL: one small query per signature), so every process sees every
  // change at its next signature.
  const snapshots = new Map<string, { stamp: string; policies: CompiledPolicy[] }>();
  async function activePolicies(location: PolicyLocation, now: Date): Promise<CompiledPolicy[]> {
    const key = `${location.projectId}|${location.environment}`;
    const stamp = await store.activeStamp(location);
    let snapshot = snapshots.get(key);
    if (snapshot?.stamp !== stamp) {
      const records = await store.listAllActive(location);
      // Delegation policies govern user-owned (claimed) wallets, which REST never signs for: they are no guardrail here.
      const guardrails = records.filter((r) => r.document.metadata.productMode !== 'delegation');
      snapshot = { stamp, policies: guardrails.map((r) => compilePolicy(r.policyId, r.version, r.document)) };
      if (snapshots.size >= maxSnapshots) snapshots.clear();
      snapshots.set(key, snapshot);
    }
    return inWindow(snapshot.policies, now);
  }

  /** `decodeAlways` false: with no active policy permissions are off and nothing is decoded (no 400 for odd bodies). */
  async function prepare(context: SigningContext, decodeAlways: boolean) {
    const now = clock.now();
    const location = { projectId: context.caller.projectId, environment: context.caller.environment };
    const active = await activePolicies(location, now);
    if (active.length === 0 && !decodeAlways) return null;
    const facts = requestFactsOf(context);
    const applying = applyingPolicies(active, facts, now);
    const evaluation: EvaluationContext = { ...location, now };
    // Only rules with an approvalRequirement need the extension; partner reviews never ask.
    const needsApproval = applying.some((p) => p.rules.some((r) => r.effect === 'require_approval' && r.approval && r.actions.has(facts.action)));
    const approvals: 'deny' | 'review' = needsApproval && approvalsAvailable && (await approvalsAvailable(location)) ? 'review' : 'deny';
    return { facts, applying, evaluation, approvals, charges: meterChargesOf(applying, facts, evaluation), permissionsAreOn: active.length > 0 };
  }

  const denied = (result: Evaluation): PolicyDecision => ({ outcome: 'deny', message: denialMessage(result.deniedBy), deniedBy: result.deniedBy });

  /** A batch of calls (policies/batch.ts): every call decided, the batch's spend reserved once. */
  async function prepareBatch(context: SigningContext, decodeAlways: boolean) {
    const now = clock.now();
    const location = { projectId: context.caller.projectId, environment: context.caller.environment };
    const active = await activePolicies(location, now);
    if (active.length === 0 && !decodeAlways) return null;
    const evaluation: EvaluationContext = { ...location, now };
    const calls = prepareCalls(active, context, evaluation);
    const needsApproval = calls.some((c) => c.applying.some((p) => p.rules.some((r) => r.effect === 'require_approval' && r.approval && r.actions.has(c.facts.action))));
    const approvals: 'deny' | 'review' = needsApproval && approvalsAvailable && (await approvalsAvailable(location)) ? 'review' : 'deny';
    return { calls, evaluation, approvals, charges: batchCharges(calls), permissionsAreOn: active.length > 0 };
  }

  const batchDenied = (judged: ReturnType<typeof judgeBatch>): PolicyDecision => ({
    outcome: 'deny',
    message: `Call ${judged.firstDenied} of the batch: ${denialMessage(judged.perCall[judged.firstDenied ?? 0]!.deniedBy)}`,
    deniedBy: judged.result.deniedBy,
  });

  async function evaluateBatch(context: SigningContext, options: { granted?: ApprovalRequirementRef[]; uncharged?: boolean }): Promise<PolicyDecision> {
    const prepared = await prepareBatch(context, false);
    if (!prepared) return { outcome: 'allow' };
    const { calls, evaluation, approvals, charges } = prepared;
    const granted = new Set((options.granted ?? []).map(requirementKey));
    const waiting = (result: Evaluation) => result.approvals.some((a) => !granted.has(requirementKey(a)));
    const judge = (totals: Map<string, bigint>) => judgeBatch(calls, totals, evaluation, { permissionsAreOn: true, approvals });
    if (options.uncharged) {
      const values = await meters.read(charges.map((c) => c.key));
      const judged = judge(withoutCharges(new Map([...values].map(([id, v]) => [id, v.spent + v.reserved])), charges));
      if (!judged.result.allowed) return batchDenied(judged);
      return waiting(judged.result) ? { outcome: 'review', approvals: judged.result.approvals } : { outcome: 'allow' };
    }
    const { result: judged, reservation } = await meters.reserve(charges, (totals) => {
      const verdict = judge(totals);
      if (!verdict.result.allowed || waiting(verdict.result)) return { reserve: false, result: verdict };
      return { reserve: true, result: verdict, bounds: verdict.bounds };
    });
    if (!judged.result.allowed) return batchDenied(judged);
    if (waiting(judged.result)) return { outcome: 'review', approvals: judged.result.approvals };
    return { outcome: 'allow', reservation };
  }

  async function explainBatch(context: SigningContext): Promise<PolicyExplanation> {
    const { calls, evaluation, approvals, charges, permissionsAreOn } = (await prepareBatch(context, true))!;
    const values = await meters.read(charges.map((c) => c.key));
    const judged = judgeBatch(calls, new Map([...values].map(([id, v]) => [id, v.spent + v.reserved])), evaluation, { permissionsAreOn, trace: true, approvals });
    const decisionOf = (e: Evaluation) => (!e.allowed ? 'deny' : e.approvals.length > 0 ? 'review_required' : 'allow') as PolicyExplanation['decision'];
    const first = calls[0]!.facts;
    return {
      decision: decisionOf(judged.result),
      reason: judged.result.deniedBy[0]?.reason ?? null,
      deniedBy: judged.result.deniedBy,
      requirements: judged.result.approvals.map(requirementRef),
      // The batch as a whole: the first call's identity, every call's legs.
      request: { ...legsView(first), legs: calls.flatMap((c) => legsView(c.facts).legs) },
      policies: judged.result.trace,
      calls: calls.map((c, i) => {
        const e = judged.perCall[i]!;
        return { decision: decisionOf(e), reason: e.deniedBy[0]?.reason ?? null, deniedBy: e.deniedBy, request: legsView(c.facts), policies: e.trace };
      }),
    };
  }

  return {
    async evaluate(context, options = {}) {
      if (context.calls) return evaluateBatch(context, options);
      const prepared = await prepare(context, false);
      if (!prepared) return { outcome: 'allow' };
      const { facts, applying, evaluation, charges, approvals } = prepared;
      const granted = new Set((options.granted ?? []).map(requirementKey));
      const waiting = (decision: { approvals: ApprovalMatch[] }) => decision.approvals.some((a) => !granted.has(requirementKey(a)));
      if (options.uncharged) {
        // Already charged (a fee replacement): the meters as they were before this intent's charge.
        const values = await meters.read(charges.map((c) => c.key));
        const totals = new Map([...values].map(([id, v]) => [id, v.spent + v.reserved]));
        for (const c of charges) {
          const id = meterKeyId(c.key);
          const rest = (totals.get(id) ?? 0n) - c.amount;
          totals.set(id, rest > 0n ? rest : 0n);
        }
        const result = evaluatePolicies(applying, facts, totals, evaluation, { permissionsAreOn: true, approvals });
        if (!result.allowed) return denied(result);
        if (waiting(result)) return { outcome: 'review', approvals: result.approvals };
        return { outcome: 'allow' };
      }
      const { result, reservation } = await meters.reserve(charges, (totals) => {
        const decision = evaluatePolicies(applying, facts, totals, evaluation, { permissionsAreOn: true, approvals });
        // Nothing is reserved for a request that pauses for review: its resend decides again.
        if (!decision.allowed || waiting(decision)) return { reserve: false, result: decision };
        return { reserve: true, result: decision, bounds: meterBounds(applying, facts, totals, evaluation) };
      });
      if (!result.allowed) return denied(result);
      if (waiting(result)) return { outcome: 'review', approvals: result.approvals };
      return { outcome: 'allow', reservation };
    },

    async explain(context) {
      if (context.calls) return explainBatch(context);
      const { facts, applying, evaluation, charges, permissionsAreOn, approvals } = (await prepare(context, true))!;
      const values = await meters.read(charges.map((c) => c.key));
      const totals = new Map([...values].map(([id, v]) => [id, v.spent + v.reserved]));
      const result = evaluatePolicies(applying, facts, totals, evaluation, { permissionsAreOn, trace: true, approvals });
      return {
        decision: !result.allowed ? 'deny' : result.approvals.length > 0 ? 'review_required' : 'allow',
        reason: result.deniedBy[0]?.reason ?? null,
        deniedBy: result.deniedBy,
        requirements: result.approvals.map(requirementRef),
        request: { ...facts, legs: facts.legs.map((l) => ({ to: l.to, asset: l.asset, amount: l.amount === null ? null : l.amount.toString() })) },
        policies: result.trace,
      };
    },
  };
}
