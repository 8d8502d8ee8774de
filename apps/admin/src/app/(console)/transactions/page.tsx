'use client';

import { useRouter } from 'next/navigation';
import { Suspense, useState, type FormEvent } from 'react';
import { ProjectFromLink, WithProject } from '@/components/project';
import { TransactionList, useUrlFilters } from '@/components/transactions';
import { Button, Card, Input, PageHeader } from '@/components/ui';
import { graphql } from '@/lib/graphql';

/** Support's entry point: an on-chain hash, in any of the partner's projects, to its record. */
function FindByHash() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const hash = String(new FormData(event.currentTarget).get('hash') ?? '').trim();
    if (!hash) return setError('Enter a transaction hash');
    setError(null);
    setPending(true);
    try {
      const data = await graphql<{ transactionByHash: { transactionId: string } | null }>(
        'query ($hash: String!) { transactionByHash(hash: $hash) { transactionId } }',
        { hash },
      );
      if (!data.transactionByHash) setError('No record with this hash');
      else router.push(`/transactions/${data.transactionByHash.transactionId}`);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setPending(false);
    }
  }
  return (
    <form onSubmit={submit} role="search" className="flex flex-wrap items-start gap-2">
      <div className="min-w-[28rem] flex-1">
        <Input name="hash" aria-label="Transaction hash" placeholder="Find a record by transaction hash (0x… or a Solana signature)" />
        {error ? (
          <p role="alert" className="mt-1 text-xs text-rose-600">
            {error}
          </p>
        ) : null}
      </div>
      <Button type="submit" disabled={pending}>
        {pending ? 'Searching…' : 'Find'}
      </Button>
    </form>
  );
}

/** The project's records, filtered by the URL query (`?user=…`, `?wallet=…`, `?status=…`). */
function FilteredRecords({ projectId }: { projectId: string }) {
  const [filters, setFilters] = useUrlFilters();
  return <TransactionList projectId={projectId} filters={filters} onFiltersChange={setFilters} />;
}

export default function TransactionsPage() {
  return (
    <>
      <PageHeader title="Transactions" subtitle="Broadcast records of the current project, newest first, filtered by user, wallet, status, intent, chain, token and dates (the filters are in the link); the list refreshes every few seconds." />
      <div className="space-y-6">
        <Suspense>
          <ProjectFromLink />
        </Suspense>
        <Card>
          <FindByHash />
        </Card>
        <WithProject>
          {(projectId) => (
            <Card title="Records">
              <Suspense>
                <FilteredRecords projectId={projectId} />
              </Suspense>
            </Card>
          )}
        </WithProject>
      </div>
    </>
  );
}
