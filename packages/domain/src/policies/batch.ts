/**
 * Policies on a batch of calls (POST /v1/wallets/{walletId}/calls): the one transaction that runs
 * them is judged call by call, each call a request of its own, a transaction of the wallet to the
 * call's target (`sign_transaction`: `request.to`, the value, the 4-byte selector, decoded ERC-20
 * `transfer`/`approve` arguments). The batch is allowed only if every call is.
 *
 * Spend is metered once for the batch: the charges of all calls are summed per meter (the batch's
 * native total, each decoded token transfer) and reserved in one statement; each call's aggregate
 * conditions are judged against the meters as they would be after the whole batch, so splitting a
 * payment into calls does not get under a limit. The bounds each call's decision holds within are
 * shifted back to the meters' totals before the batch and intersected.
 */
import type { SigningContext } from '../signing/pipeline.ts';
import type { CompiledPolicy } from './compile.ts';
import { applyingPolicies, evaluatePolicies, meterBounds, meterChargesOf, type ApprovalMatch, type Denial, type Evaluation, type EvaluationContext } from './evaluate.ts';
import { meterKeyId, type MeterBound, type MeterCharge, type RequestFacts } from './evaluation-types.ts';
import { requestFactsOf } from './request-facts.ts';

/** One call of a batch, as policies judge it. */
export interface CallPreparation {
  facts: RequestFacts;
  applying: CompiledPolicy[];
  /** This call's own charges (its totals of the meters the rules covering it read). */
  charges: MeterCharge[];
}

/** The intent of each call: a transaction of the wallet to the call's target on the batch's chain. */
export function callContexts(context: SigningContext): SigningContext[] {
  const chainId = Number(context.chain.chainId);
  return (context.calls ?? []).map((call) => {
    const { calls: _calls, executes: _executes, ...rest } = context;
    const transaction = { to: call.to, value: call.value, ...(call.data !== '0x' ? { data: call.data } : {}), chainId };
    return { ...rest, operation: 'transaction' as const, input: { transaction } };
  });
}

export function prepareCalls(active: CompiledPolicy[], context: SigningContext, evaluation: EvaluationContext): CallPreparation[] {
  return callContexts(context).map((call) => {
    const facts = requestFactsOf(call);
    const applying = applyingPolicies(active, facts, evaluation.now);
    return { facts, applying, charges: meterChargesOf(applying, facts, evaluation) };
  });
}

const amountsById = (charges: MeterCharge[]) => new Map(charges.map((c) => [meterKeyId(c.key), c.amount]));

/** The batch's charges: every meter any call reads, charged the sum of the calls' amounts. */
export function batchCharges(calls: CallPreparation[]): MeterCharge[] {
  const merged = new Map<string, MeterCharge>();
  for (const call of calls) {
    for (const charge of call.charges) {
      const id = meterKeyId(charge.key);
      const seen = merged.get(id);
      merged.set(id, seen ? { key: seen.key, amount: seen.amount + charge.amount } : charge);
    }
  }
  return [...merged.values()];
}

/** What the rest of the batch adds to each meter besides this call. */
function othersOf(call: CallPreparation, total: Map<string, bigint>): Map<string, bigint> {
  const own = amountsById(call.charges);
  return new Map([...total].map(([id, amount]) => [id, amount - (own.get(id) ?? 0n)]));
}

function shifted(totals: Map<string, bigint>, by: Map<string, bigint>, sign: 1n | -1n): Map<string, bigint> {
  return new Map([...totals].map(([id, value]) => [id, value + sign * (by.get(id) ?? 0n)]));
}

function intersect(into: Map<string, MeterBound>, id: string, bound: MeterBound): void {
  const seen = into.get(id) ?? { min: null, max: null };
  const min = bound.min === null ? seen.min : seen.min === null || bound.min > seen.min ? bound.min : seen.min;
  const max = bound.max === null ? seen.max : seen.max === null || bound.max < seen.max ? bound.max : seen.max;
  into.set(id, { min, max });
}

export interface BatchEvaluation {
  /** The batch's decision: denied when any call is; every call's denials and approvals. */
  result: Evaluation;
  /** Each call's own decision, in order. */
  perCall: Evaluation[];
  /** Where every call's decision holds, on the meters' totals before the batch. */
  bounds: Map<string, MeterBound>;
  /** The first denied call's index, or null. */
  firstDenied: number | null;
}

/** Judges every call on `totals` (spent + reserved before the batch, by meter id). */
export function judgeBatch(
  calls: CallPreparation[],
  totals: Map<string, bigint>,
  evaluation: EvaluationContext,
  options: { permissionsAreOn: boolean; trace?: boolean; approvals?: 'deny' | 'review' },
): BatchEvaluation {
  const charged = amountsById(batchCharges(calls));
  const perCall: Evaluation[] = [];
  const bounds = new Map<string, MeterBound>();
  for (const call of calls) {
    const others = othersOf(call, charged);
    const meters = shifted(totals, others, 1n);
    perCall.push(evaluatePolicies(call.applying, call.facts, meters, evaluation, options));
    for (const [id, bound] of meterBounds(call.applying, call.facts, meters, evaluation)) {
      const by = others.get(id) ?? 0n;
      intersect(bounds, id, { min: bound.min === null ? null : bound.min - by, max: bound.max === null ? null : bound.max - by });
    }
  }
  const deniedBy: Denial[] = perCall.flatMap((e) => e.deniedBy);
  const approvals = new Map<string, ApprovalMatch>();
  for (const e of perCall) for (const a of e.approvals) approvals.set([a.policyId, a.policyVersion, a.ruleId, a.requirementId].join('|'), a);
  const firstDenied = perCall.findIndex((e) => !e.allowed);
  return {
    result: { allowed: deniedBy.length === 0, deniedBy, approvals: deniedBy.length === 0 ? [...approvals.values()] : [], trace: perCall.flatMap((e) => e.trace) },
    perCall,
    bounds,
    firstDenied: firstDenied === -1 ? null : firstDenied,
  };
}

/** The meters' totals without the batch's own charge (a fee replacement of a batch already charged). */
export function withoutCharges(totals: Map<string, bigint>, charges: MeterCharge[]): Map<string, bigint> {
  const rest = shifted(totals, amountsById(charges), -1n);
  return new Map([...rest].map(([id, v]) => [id, v > 0n ? v : 0n]));
}
