'use client';

import { Select } from './ui';

export type ConsoleEnvironment = 'development' | 'production';

/** The "Environment" select of the pages that work on one project environment (policies, scopes, approvals, cases). */
export function EnvironmentPicker({ value, onChange }: { value: ConsoleEnvironment; onChange: (environment: ConsoleEnvironment) => void }) {
  return (
    <label className="flex items-center gap-2">
      <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Environment</span>
      <Select aria-label="Environment" value={value} onChange={(e) => onChange(e.target.value as ConsoleEnvironment)}>
        <option value="development">development</option>
        <option value="production">production</option>
      </Select>
    </label>
  );
}
