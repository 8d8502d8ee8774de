/**
 * How delegation policies apply to a user-owned wallet's signing request: only the policies the
 * user consented to in their active version (others deny with `consent-required`), each with its
 * parameterised limits set to the user's effective values. REST never signs for a claimed wallet
 * (409 WALLET_ALREADY_CLAIMED before any policy), so the signing pipeline does not call this yet;
 * the user's own signing path will, feeding `apply` to the evaluation beside the guardrails.
 */
import { compilePolicy, type CompiledPolicy } from '../policies/compile.ts';
import type { PolicyCondition } from '../policies/conditions.ts';
import type { PolicyDocument } from '../policies/document.ts';
import { selectorTakesWallet } from '../policies/evaluate.ts';
import type { PolicyVersionRecord } from '../policies/ports.ts';
import type { WalletRecord } from '../ports.ts';
import { parameterDeclarations, parameterValueFits } from './parameters.ts';
import type { ConsentRecord } from './ports.ts';

export interface DelegationDenial {
  reason: 'consent-required';
  policyId: string;
  policyVersion: string;
}

/** Whether an active policy is a delegation policy whose selector takes this wallet. */
export const selectsWallet = (policy: PolicyVersionRecord, wallet: Pick<WalletRecord, 'id' | 'type'>) =>
  policy.document.metadata.productMode === 'delegation' && selectorTakesWallet(policy, wallet);

/** The document with each parameterised limit set to the saved value when it fits the bounds, else its default. */
export function withParameterValues(document: PolicyDocument, values: Record<string, string>): PolicyDocument {
  const declarations = new Map(parameterDeclarations(document).map((d) => [d.id, d]));
  const rewrite = (c: PolicyCondition): PolicyCondition => {
    if ('all' in c) return { all: c.all.map(rewrite) };
    if ('any' in c) return { any: c.any.map(rewrite) };
    if ('not' in c) return { not: rewrite(c.not) };
    const declaration = c.parameter ? declarations.get(c.parameter.id) : undefined;
    if (!declaration) return c;
    const saved = values[declaration.id];
    return { ...c, value: saved !== undefined && parameterValueFits(declaration, saved) ? saved : declaration.default };
  };
  return { ...document, rules: document.rules.map((rule) => (rule.condition ? { ...rule, condition: rewrite(rule.condition) } : rule)) };
}

/**
 * The delegation policies to evaluate for a request of `wallet` (active versions within their
 * window), and a denial per selecting policy without a standing consent to its active version.
 * An app-owned (unclaimed) wallet gets neither: guardrails alone govern it.
 */
export function delegationPoliciesFor(input: {
  policies: PolicyVersionRecord[];
  wallet: Pick<WalletRecord, 'id' | 'type' | 'claimedByUserId'>;
  consents: ConsentRecord[];
  values: ReadonlyMap<string, Record<string, string>>;
}): { apply: CompiledPolicy[]; denials: DelegationDenial[] } {
  const { wallet } = input;
  const apply: CompiledPolicy[] = [];
  const denials: DelegationDenial[] = [];
  if (!wallet.claimedByUserId) return { apply, denials };
  for (const policy of input.policies) {
    if (!selectsWallet(policy, wallet)) continue;
    const consent = input.consents.find((c) => c.policyId === policy.policyId && c.walletId === wallet.id && c.userId === wallet.claimedByUserId);
    if (consent?.status !== 'standing' || consent.policyVersion !== policy.version) {
      denials.push({ reason: 'consent-required', policyId: policy.policyId, policyVersion: String(policy.version) });
      continue;
    }
    apply.push(compilePolicy(policy.policyId, policy.version, withParameterValues(policy.document, input.values.get(policy.policyId) ?? {})));
  }
  return { apply, denials };
}
