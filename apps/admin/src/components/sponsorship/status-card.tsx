'use client';

import { Badge, Button, Card, cx, ErrorBox, formatDate } from '@/components/ui';
import { changedBy, sponsorshipState, type SponsorshipView } from '@/lib/sponsorship';
import type { SponsorshipChange } from './use-sponsorship';

/**
 * Whether sponsorship is offered and admitting new transfers, and who changed that when. Owners get
 * the enablement switch and pause/resume; everyone else reads.
 */
export function SponsorshipStatus({ view, canChange, change }: { view: SponsorshipView; canChange: boolean; change: SponsorshipChange }) {
  const state = sponsorshipState(view);
  return (
    <Card title="Status">
      <section aria-label="Sponsorship status" className="space-y-3">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <div className="space-y-1">
            <p>
              <span data-testid="sponsorship-state">
                <Badge value={state} />
              </span>{' '}
              <span data-testid="sponsorship-last-change" className="text-slate-500">
                {view.updatedAt ? `changed ${formatDate(view.updatedAt)} by ${changedBy(view)}` : 'never changed (disabled by default)'}
              </span>
            </p>
            <p className="text-xs text-slate-500">
              {state === 'disabled'
                ? 'Gasless ERC-20 transfers are not offered: they take the usual path, paying their own gas.'
                : state === 'paused'
                  ? 'No new sponsored transfer is admitted; those already admitted finish.'
                  : 'Eligible ERC-20 transfers are sponsored within the limits below.'}
            </p>
          </div>
          {canChange ? (
            <div className="flex items-center gap-3">
              <button
                type="button"
                role="switch"
                aria-checked={view.enabled}
                aria-label="Sponsorship enabled"
                disabled={change.isPending}
                onClick={() => {
                  const verb = view.enabled ? 'disable' : 'enable';
                  if (window.confirm(`${view.enabled ? 'Disable' : 'Enable'} gas sponsorship for this environment?`)) change.mutate({ verb });
                }}
                className={cx(
                  'relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition disabled:cursor-not-allowed disabled:opacity-50',
                  view.enabled ? 'bg-emerald-600' : 'bg-slate-300',
                )}
              >
                <span className={cx('inline-block h-5 w-5 rounded-full bg-white shadow transition', view.enabled ? 'translate-x-5' : 'translate-x-0.5')} />
              </button>
              {view.enabled ? (
                <Button variant={view.paused ? 'primary' : 'danger'} disabled={change.isPending} onClick={() => change.mutate({ verb: view.paused ? 'resume' : 'pause' })}>
                  {view.paused ? 'Resume sponsorship' : 'Pause sponsorship'}
                </Button>
              ) : null}
            </div>
          ) : (
            <p data-testid="sponsorship-read-only" className="text-xs text-slate-500">
              Read only: owners change gas sponsorship.
            </p>
          )}
        </div>
        {change.error ? <ErrorBox title="Sponsorship was not changed" error={change.error} /> : null}
      </section>
    </Card>
  );
}
