/** A configurable key of a requirement (`<stageId>.requiredApprovals`) and its declared bounds. */
export interface ConfigurableKey {
  key: string;
  min: number;
  max: number;
  default: number;
}

/** The problem with a typed value of a configurable key (the REST rule: an integer within min..max), or null. */
export function valueProblem(typed: string, c: ConfigurableKey): string | null {
  if (!/^-?\d+$/.test(typed.trim())) return 'a whole number';
  const n = Number(typed.trim());
  return n < c.min || n > c.max ? `between ${c.min} and ${c.max}` : null;
}

/** One requirement per policy version and requirement id (a requirement may be carried by several rules: the first is kept). */
export function distinctRequirements<T extends { policyId: string; policyVersion: string; requirementId: string }>(list: T[]): T[] {
  const seen = new Set<string>();
  return list.filter((r) => {
    const key = `${r.policyId}\u0000${r.policyVersion}\u0000${r.requirementId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
