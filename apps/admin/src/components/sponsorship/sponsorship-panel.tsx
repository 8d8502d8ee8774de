'use client';

import { useQuery } from '@tanstack/react-query';
import { ErrorBox, Loading } from '@/components/ui';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';
import { SponsorshipBudget } from './budget-card';
import { SponsorFunding } from './funding-card';
import { SponsorshipLimits } from './limits-form';
import type { SponsorshipLocation } from './use-sponsorship';
import { SponsorshipStatus } from './status-card';
import { useSponsorshipChange } from './use-sponsorship';

/**
 * The Sponsorship page of one project and environment: the state with the switch and pause, the
 * limits, today's budget, and the balances that fund it on each sponsorship chain of the deployment.
 * Only owners change anything.
 */
export function SponsorshipPanel({ location }: { location: SponsorshipLocation }) {
  const trpc = useTRPC();
  const { staff } = useSession();
  const view = useQuery(trpc.sponsorship.get.queryOptions(location));
  const funding = useQuery(trpc.sponsorship.funding.queryOptions());
  const switchChange = useSponsorshipChange(location);
  const limitsChange = useSponsorshipChange(location);
  const canChange = staff?.role === 'owner';
  if (view.isPending) return <Loading />;
  if (view.error) return <ErrorBox title="Sponsorship settings not available" error={view.error} />;
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <div className="space-y-6">
        <SponsorshipStatus view={view.data} canChange={canChange} change={switchChange} />
        <SponsorshipLimits view={view.data} canChange={canChange} change={limitsChange} />
      </div>
      <div className="space-y-6">
        <SponsorshipBudget view={view.data} />
        {funding.error ? <ErrorBox title="Sponsorship funding not available" error={funding.error} /> : null}
        {funding.data?.chains.length ? <SponsorFunding funding={funding.data.chains} /> : null}
      </div>
    </div>
  );
}
