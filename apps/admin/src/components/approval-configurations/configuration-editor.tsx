'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { isStaleRevision } from '@/components/scopes/shared';
import { Button, ErrorBox, Field, Input, Mono } from '@/components/ui';
import { valueProblem } from '@/lib/approval-configurations';
import { useTRPC } from '@/lib/trpc';
import { affectedCaseIds, type Effective, type RequirementAt } from './shared';

type Values = Record<string, number>;

/**
 * Owners and developers: one number input per configurable key (within its bounds), Save and
 * Reset to defaults (`values: {}`). Both send the revision shown; a stale one reports the conflict
 * and reloads; open approval cases reached are listed with "Apply anyway" (resent with `force: true`).
 */
export function ConfigurationEditor({ at, effective, onConflict }: { at: RequirementAt; effective: Effective; onConflict: (stale: boolean) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revision = effective.configuration?.revision ?? 0;
  const [typed, setTyped] = useState<Record<string, string>>(() =>
    Object.fromEntries(effective.configurable.map((c) => [c.key, String(effective.values[c.key] ?? c.default)])),
  );
  // The values of the refused save, kept for "Apply anyway".
  const [pending, setPending] = useState<Values | null>(null);
  const save = useMutation(
    trpc.approvalConfigurations.save.mutationOptions({
      onSuccess: () => {
        onConflict(false);
        setPending(null);
        return queryClient.invalidateQueries({ queryKey: trpc.approvalConfigurations.pathKey() });
      },
      onError: (error) => {
        if (isStaleRevision(error)) {
          onConflict(true);
          setPending(null);
          void queryClient.invalidateQueries({ queryKey: trpc.approvalConfigurations.pathKey() });
        }
      },
    }),
  );
  const problems = Object.fromEntries(effective.configurable.map((c) => [c.key, valueProblem(typed[c.key] ?? '', c)]));
  const valid = Object.values(problems).every((p) => p === null);
  const send = (values: Values, force = false) => {
    setPending(values);
    save.mutate({ ...at, expectedRevision: revision, values, ...(force ? { force: true } : {}) });
  };
  const affected = save.error ? affectedCaseIds(save.error) : null;
  return (
    <form
      aria-label={`Edit ${at.requirementId}`}
      className="space-y-3 rounded-md border border-slate-200 p-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) send(Object.fromEntries(effective.configurable.map((c) => [c.key, Number((typed[c.key] ?? '').trim())])));
      }}
    >
      <div className="flex flex-wrap gap-4">
        {effective.configurable.map((c) => (
          <div key={c.key} className="w-64">
            <Field label={c.key} hint={`${c.min}..${c.max}, default ${c.default}`} error={problems[c.key] ? `Expected ${problems[c.key]}` : undefined}>
              <Input
                type="number"
                inputMode="numeric"
                min={c.min}
                max={c.max}
                step={1}
                value={typed[c.key] ?? ''}
                onChange={(e) => setTyped((t) => ({ ...t, [c.key]: e.target.value }))}
              />
            </Field>
          </div>
        ))}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={save.isPending || !valid}>
          Save
        </Button>
        <Button variant="secondary" disabled={save.isPending || Object.keys(effective.configuration?.values ?? {}).length === 0} onClick={() => send({})}>
          Reset to defaults
        </Button>
        <span className="text-xs text-slate-500">replaces revision {revision}</span>
      </div>
      {affected && pending ? (
        <div role="alert" data-testid="cases-affected" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
          <p>
            This change would alter {affected.length} open approval case(s); nothing was changed. Applying it anyway invalidates them:
          </p>
          <ul className="flex flex-wrap gap-2">
            {affected.map((caseId) => (
              <li key={caseId}>
                <Mono>{caseId}</Mono>
              </li>
            ))}
          </ul>
          <div className="flex gap-2">
            <Button variant="danger" disabled={save.isPending} onClick={() => send(pending, true)}>
              Apply anyway
            </Button>
            <Button variant="secondary" onClick={() => save.reset()}>
              Cancel
            </Button>
          </div>
        </div>
      ) : save.error && !isStaleRevision(save.error) ? (
        <ErrorBox title="Not saved" error={save.error} />
      ) : save.isSuccess ? (
        <p role="status" className="text-emerald-700">
          Saved revision {save.data.revision}
          {save.data.invalidatedCaseIds.length > 0 ? ` (invalidated ${save.data.invalidatedCaseIds.length} open case(s))` : ''}.
        </p>
      ) : null}
    </form>
  );
}
