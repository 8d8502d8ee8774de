'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { Suspense } from 'react';
import { Card, Empty, ErrorBox, Loading, Mono, PageHeader } from '@/components/ui';
import { CopyableValue } from '@/components/values';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';

type Result = RouterOutputs['search']['query'][number];

const headings: Record<Result['kind'], string> = {
  TRANSACTION: 'Transactions',
  WALLET: 'Wallets',
  USER: 'Users',
  APPROVAL_CASE: 'Approval cases',
  REVIEW: 'Partner reviews',
  WEBHOOK_EVENT: 'Webhook events',
  REQUEST: 'Requests',
};

const RECOGNISED =
  'The search finds transaction ids and hashes, wallet ids and addresses of every chain, user identifiers by their start, approval case, review, webhook event (evt_…) and request ids, in every project of your partner.';

function Results({ query }: { query: string }) {
  const trpc = useTRPC();
  const results = useQuery(trpc.search.query.queryOptions({ query }));
  if (results.isPending) return <Loading label="Searching…" />;
  if (results.error) return <ErrorBox title="Search failed" error={results.error} />;
  if (results.data.length === 0)
    return (
      <Empty title="Nothing found">
        No record matches <Mono>{query}</Mono>. {RECOGNISED}
      </Empty>
    );
  // The results come grouped by kind, then label.
  const groups = new Map<Result['kind'], Result[]>();
  for (const result of results.data) groups.set(result.kind, [...(groups.get(result.kind) ?? []), result]);
  return (
    <div className="space-y-4">
      {[...groups].map(([kind, items]) => (
        <section key={kind} aria-label={headings[kind]} data-testid="search-group" data-kind={kind}>
          <Card title={`${headings[kind]} (${items.length})`}>
            <ul className="space-y-1">
              {items.map((item) => (
                <li key={item.id}>
                  <CopyableValue value={item.label} label="result" href={item.href} width="full" tail={12} copy={false} />
                </li>
              ))}
            </ul>
          </Card>
        </section>
      ))}
    </div>
  );
}

function SearchView() {
  const query = (useSearchParams().get('q') ?? '').trim();
  return (
    <>
      <PageHeader title="Search" subtitle={query ? <>Results for <Mono>{query}</Mono>, grouped by kind (at most 20 of each).</> : undefined} />
      {query ? <Results query={query} /> : <Empty title="Type in the search box above">{RECOGNISED}</Empty>}
    </>
  );
}

export default function SearchPage() {
  return (
    <Suspense>
      <SearchView />
    </Suspense>
  );
}
