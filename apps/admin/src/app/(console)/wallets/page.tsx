'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { WithProject } from '@/components/project';
import { Badge, Button, Card, Empty, ErrorBox, formatDate, Input, Loading, LoadMore, PageHeader, Select, Table, Td } from '@/components/ui';
import { CopyableValue } from '@/components/values';
import { walletStatuses, walletTypes } from '@/lib/schemas';
import { useTRPC } from '@/lib/trpc';

function Wallets({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [type, setType] = useState('');
  const [status, setStatus] = useState('');
  const [claimed, setClaimed] = useState('');
  const [search, setSearch] = useState('');
  const input = {
    projectId,
    ...(type ? { type: type as (typeof walletTypes)[number] } : {}),
    ...(status ? { status: status as (typeof walletStatuses)[number] } : {}),
    ...(claimed ? { claimed: claimed === 'yes' } : {}),
    ...(search ? { search } : {}),
    limit: 25,
  };
  const list = useInfiniteQuery(trpc.wallets.list.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined }));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSearch(String(new FormData(event.currentTarget).get('search') ?? '').trim());
  }
  const filtered = Boolean(type || status || claimed || search);
  return (
    <Card>
      <div className="space-y-3">
        <form onSubmit={submit} className="flex flex-wrap items-center gap-2" role="search">
          <Input name="search" aria-label="Search wallets" placeholder="Exact address or user identifier" className="w-80" />
          <Button type="submit" variant="secondary">
            Search
          </Button>
          <Select aria-label="Type" value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">Any type</option>
            {walletTypes.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </Select>
          <Select aria-label="Wallet status" value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Any status</option>
            {walletStatuses.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </Select>
          <Select aria-label="Claimed" value={claimed} onChange={(e) => setClaimed(e.target.value)}>
            <option value="">Claimed or not</option>
            <option value="yes">Claimed</option>
            <option value="no">Not claimed</option>
          </Select>
        </form>
        {list.isPending ? (
          <Loading />
        ) : list.error ? (
          <ErrorBox error={list.error} />
        ) : rows.length === 0 ? (
          <Empty title={filtered ? 'No wallet matches' : 'No wallets yet'}>
            {filtered ? 'Search takes an exact address or user identifier.' : (
              <>
                Create one with <code>POST /v1/wallets</code> and an API key of this project.
              </>
            )}
          </Empty>
        ) : (
          <>
            <Table head={['Created', 'Type', 'Address', 'User', 'Status', 'Claimed']}>
              {rows.map((w) => (
                <tr key={w.id} data-testid={`wallet-${w.id}`} className="hover:bg-slate-50">
                  <Td>
                    <Link className="text-indigo-600 hover:underline" href={`/wallets/${w.id}`}>
                      {formatDate(w.createdAt)}
                    </Link>
                  </Td>
                  <Td>{w.type}</Td>
                  <Td>
                    <CopyableValue value={w.address} label="address" width="md" />
                  </Td>
                  <Td>
                    <CopyableValue value={w.userIdentifier} label="user" width="md" mono={false} /> <span className="text-xs text-slate-400">{w.userIdentifierType}</span>
                  </Td>
                  <Td>
                    <Badge value={w.status} />
                  </Td>
                  <Td>{w.claimedAt ? formatDate(w.claimedAt) : <span className="text-slate-400">no</span>}</Td>
                </tr>
              ))}
            </Table>
            <LoadMore list={list} />
          </>
        )}
      </div>
    </Card>
  );
}

export default function WalletsPage() {
  return (
    <>
      <PageHeader title="Wallets" subtitle="Wallets of the current project; open one for its addresses, claim state and transactions." />
      <WithProject>{(projectId) => <Wallets projectId={projectId} />}</WithProject>
    </>
  );
}
