'use client';

import { Card, DefinitionList, Mono } from '@/components/ui';
import { budgetUsedPercent, formatEth, type SponsorshipView } from '@/lib/sponsorship';

const amount = (wei: string, testId: string) => (
  <span data-testid={testId}>
    <span className="font-medium">{formatEth(wei)}</span> <Mono>{wei} wei</Mono>
  </span>
);

/** What today's (UTC) sponsored operations have reserved or spent against the daily budget, and what remains. */
export function SponsorshipBudget({ view }: { view: SponsorshipView }) {
  const { day, usedWei, remainingWei } = view.budgetToday;
  const percent = budgetUsedPercent(usedWei, view.dailyBudgetWei);
  return (
    <Card title={`Budget today (${day} UTC)`}>
      <section aria-label="Budget today" className="space-y-3">
        <div
          role="progressbar"
          aria-label="Daily budget used"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          className="h-2 w-full overflow-hidden rounded-full bg-slate-100"
        >
          <div className={percent >= 90 ? 'h-full bg-rose-500' : 'h-full bg-indigo-500'} style={{ width: `${percent}%` }} />
        </div>
        <DefinitionList
          items={[
            ['Used', amount(usedWei, 'sponsorship-used-today')],
            ['Remaining', amount(remainingWei, 'sponsorship-remaining-today')],
          ]}
        />
        <p className="text-xs text-slate-500">Operations reserve their maximum cost when admitted and count their actual gas cost once they land.</p>
      </section>
    </Card>
  );
}
