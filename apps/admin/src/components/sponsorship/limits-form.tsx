'use client';

import { useState } from 'react';
import { Button, Card, DefinitionList, ErrorBox, Field, Input, Mono } from '@/components/ui';
import { fieldErrors } from '@/lib/forms';
import { sponsorshipLimitsSchema } from '@/lib/schemas';
import { changedLimits, ethPreview, formatEth, type SponsorshipView } from '@/lib/sponsorship';
import { apiFailure } from '@/lib/trpc';
import type { SponsorshipChange } from './use-sponsorship';

function Wei({ value, testId }: { value: string; testId: string }) {
  return (
    <span data-testid={testId}>
      <span className="font-medium">{formatEth(value)}</span> <Mono>{value} wei</Mono>
    </span>
  );
}

/**
 * The per-operation gas cap and the daily budget, in wei and in ETH. Owners edit them; a save
 * keeps the state (audited as `sponsorship.limits`).
 */
export function SponsorshipLimits({ view, canChange, change }: { view: SponsorshipView; canChange: boolean; change: SponsorshipChange }) {
  return (
    <Card title="Limits">
      <section aria-label="Sponsorship limits" className="space-y-4">
        <DefinitionList
          items={[
            ['Gas cap per operation', <Wei key="cap" value={view.gasCapWei} testId="sponsorship-gas-cap" />],
            ['Daily budget (UTC)', <Wei key="budget" value={view.dailyBudgetWei} testId="sponsorship-daily-budget" />],
          ]}
        />
        <p className="text-xs text-slate-500">
          An operation whose gas limits times its max fee per gas exceed the cap is refused (<code>SPONSORSHIP_GAS_CAP_EXCEEDED</code>); once a UTC
          day&apos;s operations would exceed the budget, new ones are refused (<code>SPONSORSHIP_BUDGET_EXCEEDED</code>).
        </p>
        {canChange ? <LimitsEditor key={`${view.gasCapWei}:${view.dailyBudgetWei}`} view={view} change={change} /> : null}
      </section>
    </Card>
  );
}

function LimitsEditor({ view, change }: { view: SponsorshipView; change: SponsorshipChange }) {
  const [typed, setTyped] = useState({ gasCapWei: view.gasCapWei, dailyBudgetWei: view.dailyBudgetWei });
  const changed = changedLimits(typed, view);
  // The API's own schema first; what the API answered (the same rules) when the browser found nothing.
  const parsed = sponsorshipLimitsSchema.safeParse(changed);
  const typedErrors = parsed.success ? {} : fieldErrors(parsed.error);
  const fieldError = (field: string) => typedErrors[field] ?? (change.error ? apiFailure(change.error).details?.find((d) => d.path === field)?.message : undefined);
  return (
    <form
      aria-label="Change limits"
      className="space-y-3 border-t border-slate-100 pt-4"
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate({ verb: 'limits', ...changed });
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Gas cap per operation (wei)" hint={ethPreview(typed.gasCapWei) ?? 'A positive whole number of wei'} error={fieldError('gasCapWei')}>
          <Input inputMode="numeric" value={typed.gasCapWei} onChange={(e) => setTyped({ ...typed, gasCapWei: e.target.value })} />
        </Field>
        <Field label="Daily budget (wei)" hint={ethPreview(typed.dailyBudgetWei) ?? 'A positive whole number of wei'} error={fieldError('dailyBudgetWei')}>
          <Input inputMode="numeric" value={typed.dailyBudgetWei} onChange={(e) => setTyped({ ...typed, dailyBudgetWei: e.target.value })} />
        </Field>
      </div>
      <Button type="submit" disabled={change.isPending || !parsed.success || Object.keys(changed).length === 0}>
        Save limits
      </Button>
      {change.error ? <ErrorBox title="The limits were not saved" error={change.error} /> : null}
    </form>
  );
}
