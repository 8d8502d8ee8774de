/**
 * User-adjustable parameters of delegation policies: the declarations a document carries
 * (`parameter` on a compare or aggregate condition, the condition's value being the default), and
 * the check of a value a user saves against the declared min/max.
 */
import { policyConditionLeaves } from '../policies/conditions.ts';
import type { PolicyDocument } from '../policies/document.ts';
import { fieldError } from '../shared/zod.ts';

export interface ParameterDeclaration {
  id: string;
  label: string;
  /** The condition's value: what applies until the user saves another one. */
  default: string;
  min: string | null;
  max: string | null;
  ruleId: string;
  /** What the limit bounds: a per-request amount fact, or a spend meter over its window. */
  limit: { kind: 'compare'; fact: string; op: string } | { kind: 'aggregate'; meter: string; window: string; asset: string | null; op: string };
}

/** Every parameter a document declares, in document order (ids are unique within a valid document). */
export function parameterDeclarations(document: PolicyDocument): ParameterDeclaration[] {
  const out: ParameterDeclaration[] = [];
  for (const rule of document.rules) {
    if (!rule.condition) continue;
    for (const leaf of policyConditionLeaves(rule.condition, []).leaves) {
      const parameter = leaf.condition.parameter;
      if (!parameter) continue;
      const base = { id: parameter.id, label: parameter.label, default: leaf.condition.value as string, min: parameter.min ?? null, max: parameter.max ?? null, ruleId: rule.id };
      out.push(
        leaf.kind === 'compare'
          ? { ...base, limit: { kind: 'compare', fact: leaf.condition.fact, op: leaf.condition.op } }
          : { ...base, limit: { kind: 'aggregate', meter: leaf.condition.aggregate.meter, window: leaf.condition.aggregate.window, asset: leaf.condition.aggregate.asset ?? null, op: leaf.condition.op } },
      );
    }
  }
  return out;
}

const baseUnits = /^(0|[1-9]\d{0,77})$/;

/** The value as a canonical decimal string, or 400 naming the declared bounds. */
export function checkParameterValue(declaration: ParameterDeclaration, value: string): string {
  const field = (message: string) => fieldError('value', message);
  if (!baseUnits.test(value)) throw field('expected a non-negative integer in base units as a decimal string (e.g. "1000000")');
  const amount = BigInt(value);
  const range = `${declaration.min ?? '0'}..${declaration.max ?? 'unbounded'}`;
  if (declaration.min !== null && amount < BigInt(declaration.min)) throw field(`${value} is below the minimum ${declaration.min} of parameter ${declaration.id} (allowed: ${range})`);
  if (declaration.max !== null && amount > BigInt(declaration.max)) throw field(`${value} is above the maximum ${declaration.max} of parameter ${declaration.id} (allowed: ${range})`);
  return amount.toString();
}

/** Whether a saved value still fits the declaration (a new policy version may narrow the bounds). */
export function parameterValueFits(declaration: ParameterDeclaration, value: string): boolean {
  try {
    checkParameterValue(declaration, value);
    return true;
  } catch {
    return false;
  }
}
