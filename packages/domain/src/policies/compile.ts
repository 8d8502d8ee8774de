/**
 * A stored policy document turned, once per version, into what evaluation needs on every
 * signature: values normalized and parsed (big integers, lower-cased EVM addresses, sets), and
 * per rule the actions it covers on its wallet type.
 */
import { policyConditionLeaves, policyWindowMs, type PolicyCondition } from './conditions.ts';
import { approvalExpiryMs, eligibilityOf, type PolicyDocument, type PolicyRule } from './document.ts';
import { actionHasFact, actionHasMeter, policyActionsOf, policyFacts, type FactType, type PolicyActionName, type PolicyFactName, type PolicyMeter, type PolicyWalletType } from './facts.ts';

export type CompiledCondition =
  | { kind: 'compare'; fact: PolicyFactName; op: 'eq' | 'ne' | 'in' | 'nin'; values: Set<string>; text: string[] }
  | { kind: 'order'; fact: PolicyFactName; op: 'lt' | 'lte' | 'gt' | 'gte'; value: bigint; parameterId?: string }
  | { kind: 'aggregate'; meter: PolicyMeter; asset: string | null; windowMs: number; window: string; op: 'lt' | 'lte' | 'gt' | 'gte'; limit: bigint; parameterId?: string }
  | { kind: 'all'; children: CompiledCondition[] }
  | { kind: 'any'; children: CompiledCondition[] }
  | { kind: 'not'; child: CompiledCondition };

/** A require_approval rule's requirement as cases snapshot it. */
export interface CompiledApproval {
  requirementId: string;
  stages: { id: string; roles: string[]; attributes: Record<string, string[]>; requiredApprovals: number }[];
  expiresInMs: number;
}

export interface CompiledRule {
  id: string;
  effect: PolicyRule['effect'];
  /** require_approval rules: who approves, in which stages, and how long a case stays open; null on a partner review rule. */
  approval: CompiledApproval | null;
  /** The actions the rule judges: named ones, or under "all" those that carry every fact and meter it reads. */
  actions: ReadonlySet<PolicyActionName>;
  condition: CompiledCondition | null;
  hasAggregate: boolean;
}

export interface CompiledPolicy {
  policyId: string;
  version: number;
  /** delegation: user-owned wallets only, with the user's standing consent (never a guardrail on app-owned wallets). */
  productMode: PolicyDocument['metadata']['productMode'];
  walletType: PolicyWalletType;
  /** Normalized selector sets; null = no restriction. */
  networks: ReadonlySet<string> | null;
  walletIds: ReadonlySet<string> | null;
  apiKeyIds: ReadonlySet<string> | null;
  effectiveFrom: number | null;
  effectiveUntil: number | null;
  rules: CompiledRule[];
}

/** How values of a type compare: EVM and Sui hex is case-insensitive, ids and networks too. */
export function normalizeValue(type: FactType, walletType: PolicyWalletType, value: string): string {
  switch (type) {
    case 'address':
    case 'asset':
      return walletType === 'EVM' || walletType === 'SUI' ? value.toLowerCase() : value;
    case 'selector':
    case 'uuid':
    case 'chainId':
      return value.toLowerCase();
    default:
      return value;
  }
}

/** A uint fact compares as a number: "007" and "7" are the same amount. */
const canonical = (type: FactType, walletType: PolicyWalletType, value: string) =>
  type === 'uint' ? BigInt(value).toString() : normalizeValue(type, walletType, value);

function compileCondition(condition: PolicyCondition, walletType: PolicyWalletType): CompiledCondition {
  if ('all' in condition) return { kind: 'all', children: condition.all.map((c) => compileCondition(c, walletType)) };
  if ('any' in condition) return { kind: 'any', children: condition.any.map((c) => compileCondition(c, walletType)) };
  if ('not' in condition) return { kind: 'not', child: compileCondition(condition.not, walletType) };
  if ('aggregate' in condition) {
    const { meter, window, asset } = condition.aggregate;
    return {
      kind: 'aggregate',
      meter,
      asset: asset == null ? null : normalizeValue('asset', walletType, asset),
      windowMs: policyWindowMs(window)!,
      window,
      op: condition.op,
      limit: BigInt(condition.value),
      ...(condition.parameter ? { parameterId: condition.parameter.id } : {}),
    };
  }
  const type = policyFacts[condition.fact].type;
  if (condition.op === 'lt' || condition.op === 'lte' || condition.op === 'gt' || condition.op === 'gte') {
    return { kind: 'order', fact: condition.fact, op: condition.op, value: BigInt(condition.value as string), ...(condition.parameter ? { parameterId: condition.parameter.id } : {}) };
  }
  const text = Array.isArray(condition.value) ? condition.value : [condition.value];
  return { kind: 'compare', fact: condition.fact, op: condition.op, values: new Set(text.map((v) => canonical(type, walletType, v))), text };
}

function coveredActions(rule: PolicyRule, walletType: PolicyWalletType): Set<PolicyActionName> {
  if (rule.actions !== 'all') return new Set(rule.actions);
  const leaves = rule.condition ? policyConditionLeaves(rule.condition, []).leaves : [];
  return new Set(
    policyActionsOf(walletType).filter((action) =>
      leaves.every((leaf) =>
        leaf.kind === 'compare' ? actionHasFact(walletType, action, leaf.condition.fact) : actionHasMeter(walletType, action, leaf.condition.aggregate.meter),
      ),
    ),
  );
}

const setOf = (values: string[] | undefined, normalize: (v: string) => string) => (values ? new Set(values.map(normalize)) : null);
const time = (iso: string | undefined) => (iso ? Date.parse(iso) : null);

export function compilePolicy(policyId: string, version: number, document: PolicyDocument): CompiledPolicy {
  const walletType = document.selector.walletType;
  return {
    policyId,
    version,
    productMode: document.metadata.productMode,
    walletType,
    networks: setOf(document.selector.chainId, (v) => v.toLowerCase()),
    walletIds: setOf(document.selector.walletId, (v) => v.toLowerCase()),
    apiKeyIds: setOf(document.selector.apiKeyId, (v) => v.toLowerCase()),
    effectiveFrom: time(document.effectiveFrom),
    effectiveUntil: time(document.effectiveUntil),
    rules: document.rules.map((rule) => ({
      id: rule.id,
      effect: rule.effect,
      approval: rule.approvalRequirement
        ? {
            requirementId: rule.approvalRequirement.id,
            stages: rule.approvalRequirement.stages.map((s) => ({ id: s.id, ...eligibilityOf(s.eligibility), requiredApprovals: s.requiredApprovals })),
            expiresInMs: approvalExpiryMs(rule.approvalRequirement.expiresIn) ?? 3_600_000,
          }
        : null,
      actions: coveredActions(rule, walletType),
      condition: rule.condition ? compileCondition(rule.condition, walletType) : null,
      hasAggregate: rule.condition ? policyConditionLeaves(rule.condition, []).leaves.some((l) => l.kind === 'aggregate') : false,
    })),
  };
}

export type CompiledAggregate = Extract<CompiledCondition, { kind: 'aggregate' }>;

/** Every aggregate (spend meter) condition of a compiled condition, in document order. */
export function aggregatesOf(condition: CompiledCondition | null, into: CompiledAggregate[] = []): CompiledAggregate[] {
  if (!condition) return into;
  if (condition.kind === 'aggregate') into.push(condition);
  else if (condition.kind === 'all' || condition.kind === 'any') condition.children.forEach((c) => aggregatesOf(c, into));
  else if (condition.kind === 'not') aggregatesOf(condition.child, into);
  return into;
}
