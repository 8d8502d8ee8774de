/**
 * The signing pipeline's policy stage: loads the project's active policies, decodes the request
 * once, and decides — when a rule reads a spend meter, through the meter store, which reserves
 * this request's spend only if the meters are still where the decision saw them (so concurrent
 * requests never overshoot).
 * `explain` is the dry run: the same decision with a trace, reading meters without reserving.
 */
import type { PolicyDecision, PolicyEngine, SigningContext } from '../signing/pipeline.ts';
import type { Clock } from '../shared/clock.ts';
import { compilePolicy, type CompiledPolicy } from './compile.ts';
import { applyingPolicies, evaluatePolicies, inWindow, meterBounds, meterChargesOf, type Denial, type Evaluation, type EvaluationContext, type PolicyTrace } from './evaluate.ts';
import type { MeterStore, RequestFacts } from './evaluation-types.ts';
import type { PolicyLocation, PolicyStore } from './ports.ts';
import { requestFactsOf } from './request-facts.ts';

export interface PolicyEngineDeps {
  store: Pick<PolicyStore, 'listAllActive' | 'activeStamp'>;
  meters: MeterStore;
  clock: Clock;
}

/** The dry run's answer: the decision, what the request was decoded as, and every applying rule. */
export interface PolicyExplanation {
  decision: 'allow' | 'deny';
  reason: string | null;
  deniedBy: Denial[];
  request: Omit<RequestFacts, 'legs'> & { legs: { to: string | null; asset: string | null; amount: string | null }[] };
  policies: PolicyTrace[];
}

const maxSnapshots = 10_000;

export function denialMessage(deniedBy: Denial[]): string {
  const first = deniedBy[0];
  if (!first) return 'The request was denied by a policy';
  if (first.reason === 'raw-signature-not-allowed') return 'Raw signatures are denied while permissions are on; no active policy allows raw_signature for this wallet';
  const more = deniedBy.length > 1 ? ` (and ${deniedBy.length - 1} more)` : '';
  return `Denied by policy ${first.policyId} version ${first.policyVersion}, rule ${first.ruleId}: ${first.reason}${more}`;
}

export function createPolicyEngine({ store, meters, clock }: PolicyEngineDeps): PolicyEngine & { explain(context: SigningContext): Promise<PolicyExplanation> } {
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
      snapshot = { stamp, policies: records.map((r) => compilePolicy(r.policyId, r.version, r.document)) };
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
    return { facts, applying, evaluation, charges: meterChargesOf(applying, facts, evaluation), permissionsAreOn: active.length > 0 };
  }

  const denied = (result: Evaluation): PolicyDecision => ({ outcome: 'deny', message: denialMessage(result.deniedBy), deniedBy: result.deniedBy });

  return {
    async evaluate(context) {
      const prepared = await prepare(context, false);
      if (!prepared) return { outcome: 'allow' };
      const { facts, applying, evaluation, charges } = prepared;
      const { result, reservation } = await meters.reserve(charges, (totals) => {
        const decision = evaluatePolicies(applying, facts, totals, evaluation, { permissionsAreOn: true });
        if (!decision.allowed) return { reserve: false, result: decision };
        return { reserve: true, result: decision, bounds: meterBounds(applying, facts, totals, evaluation) };
      });
      if (!result.allowed) return denied(result);
      return { outcome: 'allow', reservation };
    },

    async explain(context) {
      const { facts, applying, evaluation, charges, permissionsAreOn } = (await prepare(context, true))!;
      const values = await meters.read(charges.map((c) => c.key));
      const totals = new Map([...values].map(([id, v]) => [id, v.spent + v.reserved]));
      const result = evaluatePolicies(applying, facts, totals, evaluation, { permissionsAreOn, trace: true });
      return {
        decision: result.allowed ? 'allow' : 'deny',
        reason: result.deniedBy[0]?.reason ?? null,
        deniedBy: result.deniedBy,
        request: { ...facts, legs: facts.legs.map((l) => ({ to: l.to, asset: l.asset, amount: l.amount === null ? null : l.amount.toString() })) },
        policies: result.trace,
      };
    },
  };
}
