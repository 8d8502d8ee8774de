'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { Suspense, type FormEvent } from 'react';
import { Badge, Button, Card, Empty, ErrorBox, formatDate, Input, LoadMore, Loading, PageHeader, Table, Td } from '@/components/ui';
import { CopyableValue, None } from '@/components/values';
import { useTRPC, type RouterInputs, type RouterOutputs } from '@/lib/trpc';

type Filters = Omit<RouterInputs['requestLog']['list'], 'cursor' | 'direction' | 'limit'>;

/** Entries a page: the newest first, then older ones a "Load more" at a time, on the API's keyset cursor. */
const PAGE = 100;

/** The URL query's names: the page's filters, so a link (`/request-log?requestId=…`) opens them. */
const TEXT_FILTERS = ['requestId', 'code', 'apiKeyId', 'walletId'] as const;

function filtersOf(params: URLSearchParams): Filters {
  const filters: Filters = {};
  for (const name of TEXT_FILTERS) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  const status = params.get('status');
  if (status && /^\d{3}$/.test(status)) filters.status = Number(status);
  for (const name of ['from', 'to'] as const) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

/** datetime-local value (local time) <-> ISO time of the URL. */
const toLocalInput = (iso: string | undefined) => {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : '');

function FilterForm({ filters }: { filters: Filters }) {
  const router = useRouter();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const query = new URLSearchParams();
    for (const name of [...TEXT_FILTERS, 'status']) {
      const value = String(form.get(name) ?? '').trim();
      if (value) query.set(name, value);
    }
    for (const name of ['from', 'to']) {
      const value = fromLocalInput(String(form.get(name) ?? ''));
      if (value) query.set(name, value);
    }
    router.replace(`/request-log${query.size > 0 ? `?${query}` : ''}`);
  }
  const field = 'flex flex-col gap-1 text-xs text-slate-600';
  return (
    <form role="search" aria-label="Request log filters" onSubmit={submit} className="grid grid-cols-1 gap-3 md:grid-cols-4" key={JSON.stringify(filters)}>
      <label className={field}>
        Request id
        <Input name="requestId" defaultValue={filters.requestId ?? ''} placeholder="X-Request-Id" />
      </label>
      <label className={field}>
        Status
        <Input name="status" inputMode="numeric" defaultValue={filters.status?.toString() ?? ''} placeholder="e.g. 403" />
      </label>
      <label className={field}>
        Code
        <Input name="code" defaultValue={filters.code ?? ''} placeholder="e.g. POLICY_DENIED" />
      </label>
      <label className={field}>
        API key
        <Input name="apiKeyId" defaultValue={filters.apiKeyId ?? ''} placeholder="API key id" />
      </label>
      <label className={field}>
        Wallet
        <Input name="walletId" defaultValue={filters.walletId ?? ''} placeholder="Wallet id" />
      </label>
      <label className={field}>
        From
        <Input name="from" type="datetime-local" defaultValue={toLocalInput(filters.from)} />
      </label>
      <label className={field}>
        To
        <Input name="to" type="datetime-local" defaultValue={toLocalInput(filters.to)} />
      </label>
      <div className="flex items-end gap-2">
        <Button type="submit">Apply filters</Button>
        <Button type="button" variant="secondary" onClick={() => router.replace('/request-log')}>
          Clear
        </Button>
      </div>
    </form>
  );
}

type Entry = RouterOutputs['requestLog']['list']['data'][number];

/** The record, wallet and case an entry names, each a link (its id in the hover title and accessible name). */
function EntryLinks({ entry }: { entry: Entry }) {
  const links = [
    entry.transactionId ? { text: 'Record', name: 'Record', id: entry.transactionId, href: `/transactions/${entry.transactionId}` } : null,
    entry.walletId ? { text: 'Wallet', name: 'Wallet', id: entry.walletId, href: `/wallets/${entry.walletId}` } : null,
    entry.caseId && entry.projectId ? { text: 'Case', name: 'Approval case', href: `/cases?project=${entry.projectId}&case=${entry.caseId}` } : null,
  ].filter((link) => link !== null);
  if (links.length === 0) return <None />;
  return (
    <span className="flex gap-3">
      {links.map((link) => (
        <Link key={link.name} className="text-indigo-600 hover:underline" href={link.href} title={`${link.name} ${link.id}`} aria-label={`${link.name} ${link.id}`}>
          {link.text}
        </Link>
      ))}
    </span>
  );
}

function Entries({ filters }: { filters: Filters }) {
  const trpc = useTRPC();
  const list = useInfiniteQuery(
    trpc.requestLog.list.infiniteQueryOptions({ ...filters, limit: PAGE }, { getNextPageParam: (last) => last.pagination.cursor ?? undefined }),
  );
  if (list.isPending) return <Loading />;
  if (list.error) return <ErrorBox error={list.error} />;
  const entries = list.data.pages.flatMap((page) => page.data);
  if (entries.length === 0) {
    return (
      <Empty title={Object.keys(filters).length > 0 ? 'No request matches these filters' : 'No requests logged yet'}>
        Requests that changed state or were refused appear here within a second.
      </Empty>
    );
  }
  return (
    <div className="space-y-3">
      <Table head={['At', 'Request', 'Status', 'Deciding rules', 'Request id', 'API key', 'Links', 'Latency']}>
        {entries.map((entry) => (
          <tr key={`${entry.requestId}-${entry.at}`} data-testid={`request-${entry.requestId}`} className="hover:bg-slate-50">
            <Td>{formatDate(entry.at)}</Td>
            <Td>
              <span className="font-medium">{entry.method}</span> <CopyableValue value={entry.route} label="route" width="md" tail={10} />
            </Td>
            <Td>
              {entry.status} {entry.code ? <Badge value={entry.code} /> : null}
            </Td>
            <Td>
              {entry.deniedBy?.length ? (
                <ul aria-label="Deciding rules" className="flex gap-2">
                  {entry.deniedBy.map((rule) => {
                    const label = `${rule.policyId} v${rule.policyVersion}${rule.ruleId ? ` / ${rule.ruleId}` : ''}`;
                    return (
                      <li key={`${rule.policyId}:${rule.policyVersion}:${rule.ruleId}`} title={label} className="max-w-[8rem] truncate font-mono text-xs text-slate-700">
                        {label}
                      </li>
                    );
                  })}
                </ul>
              ) : (
                <None />
              )}
            </Td>
            <Td>
              <CopyableValue value={entry.requestId} label="request id" width="xs" />
            </Td>
            <Td>
              <CopyableValue value={entry.apiKeyId} label="API key id" width="xs" />
            </Td>
            <Td>
              <EntryLinks entry={entry} />
            </Td>
            <Td>{entry.latencyMs.toFixed(1)} ms</Td>
          </tr>
        ))}
      </Table>
      <LoadMore list={list} />
    </div>
  );
}

function RequestLogView() {
  const filters = filtersOf(useSearchParams());
  return (
    <>
      <PageHeader
        title="Request log"
        subtitle="Every API request of your projects that changed state or was refused, newest first: its request id, route, status, error code and the policy rules that decided a refusal. Never bodies or keys."
      />
      <div className="space-y-6">
        <Card>
          <FilterForm filters={filters} />
        </Card>
        <Card title="Requests">
          <Entries filters={filters} />
        </Card>
      </div>
    </>
  );
}

export default function RequestLogPage() {
  // useSearchParams needs a Suspense boundary on a statically rendered page.
  return (
    <Suspense>
      <RequestLogView />
    </Suspense>
  );
}
