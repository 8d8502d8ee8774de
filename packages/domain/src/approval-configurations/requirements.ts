/**
 * The approval requirements of stored policy versions as the configuration routes show them, and
 * what a configuration does to them. A configurable value is addressed as `<stageId>.<key>`
 * (evm-approvals.json: `"finance.requiredApprovals"`), bounded by the stage's declaration.
 */
import { eligibilityOf } from '../policies/document.ts';
import type { PolicyVersionRecord } from '../policies/ports.ts';
import type { ConfigurationValues } from './ports.ts';

export interface RequirementStageView {
  id: string;
  eligibility: { roles: string[]; attributes: Record<string, string[]> };
  /** The policy's value (the default); the effective view shows the configured one. */
  requiredApprovals: number;
}

export interface ConfigurableView {
  key: string;
  min: number;
  max: number;
  default: number;
}

export interface RequirementView {
  policyId: string;
  /** Decimal string, as policies show versions. */
  policyVersion: string;
  ruleId: string;
  requirementId: string;
  stages: RequirementStageView[];
  configurable: ConfigurableView[];
}

/** Every approval requirement of the versions, in policy then rule order (one entry per rule). */
export function requirementsOf(versions: PolicyVersionRecord[]): RequirementView[] {
  const out: RequirementView[] = [];
  for (const version of versions) {
    for (const rule of version.document.rules) {
      const requirement = rule.approvalRequirement;
      if (rule.effect !== 'require_approval' || !requirement) continue;
      out.push({
        policyId: version.policyId,
        policyVersion: String(version.version),
        ruleId: rule.id,
        requirementId: requirement.id,
        stages: requirement.stages.map((stage) => ({ id: stage.id, eligibility: eligibilityOf(stage.eligibility), requiredApprovals: stage.requiredApprovals })),
        configurable: requirement.stages.flatMap((stage) => {
          const range = stage.configurable?.requiredApprovals;
          return range ? [{ key: `${stage.id}.requiredApprovals`, min: range.min, max: range.max, default: stage.requiredApprovals }] : [];
        }),
      });
    }
  }
  return out;
}

/**
 * Every declaration of each key among the rules that share the requirement id (ids are meant to be
 * unique in a version; when they are not, one configuration applies to each and a value must fit
 * every declaration of its key).
 */
export function declarationsOf(requirements: RequirementView[]): Map<string, ConfigurableView[]> {
  const byKey = new Map<string, ConfigurableView[]>();
  for (const requirement of requirements) {
    for (const declared of requirement.configurable) byKey.set(declared.key, [...(byKey.get(declared.key) ?? []), declared]);
  }
  return byKey;
}

/** Problems of `values` against the declarations, one per key: unknown keys, non-integers, out of bounds. */
export function valueProblems(values: Record<string, unknown>, declarations: Map<string, ConfigurableView[]>): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  const known = [...declarations.keys()];
  for (const [key, value] of Object.entries(values)) {
    const declared = declarations.get(key);
    const path = `values.${key}`;
    if (!declared) {
      problems.push({ path, message: `not a configurable value of this requirement (declared: ${known.length ? known.join(', ') : 'none'})` });
      continue;
    }
    const min = Math.max(...declared.map((d) => d.min));
    const max = Math.min(...declared.map((d) => d.max));
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push({ path, message: `expected an integer from ${min} to ${max}` });
    }
  }
  return problems;
}

/** The value each declared key takes: the configured one, else the policy's default. */
export function effectiveValues(requirement: RequirementView, values: ConfigurationValues | null): ConfigurationValues {
  return Object.fromEntries(requirement.configurable.map((declared) => [declared.key, values?.[declared.key] ?? declared.default]));
}

/** Whether two configurations make any declared key of the requirements take another value. */
export function changesEffective(requirements: RequirementView[], previous: ConfigurationValues | null, next: ConfigurationValues): boolean {
  return requirements.some((requirement) => {
    const before = effectiveValues(requirement, previous);
    const after = effectiveValues(requirement, next);
    return Object.keys(after).some((key) => before[key] !== after[key]);
  });
}

/** The requirement's stages with the configuration applied. */
export function applyConfiguration(requirement: RequirementView, values: ConfigurationValues | null): RequirementStageView[] {
  const effective = effectiveValues(requirement, values);
  return requirement.stages.map((stage) => ({ ...stage, requiredApprovals: effective[`${stage.id}.requiredApprovals`] ?? stage.requiredApprovals }));
}
