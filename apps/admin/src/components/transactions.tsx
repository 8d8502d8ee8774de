'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { intentKinds, transactionStatuses } from '@/lib/schemas';
import { useTRPC } from '@/lib/trpc';
import { Badge, Empty, ErrorBox, formatDate, Loading, LoadMore, Mono, Select, short, Table, Td } from './ui';

/** Marks a record the service sent itself at a nonce nothing held (`serviceInitiated: 'nonce_gap_filler'`). */
export function GapFillerBadge() {
  return (
    <span
      data-testid="gap-filler-badge"
      title="Sent by the service: a zero-value transfer to the wallet itself at a nonce nothing held, so the wallet's waiting transactions could be mined"
      className="ml-1.5 inline-block rounded-full bg-violet-100 px-2 py-0.5 text-xs font-medium text-violet-800"
    >
      gap filler
    </span>
  );
}

/** A project's records (or one wallet's), newest first, with status and intent filters. */
export function TransactionList({ projectId, walletId }: { projectId: string; walletId?: string }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState('');
  const [intentKind, setIntentKind] = useState('');
  const input = {
    projectId,
    ...(walletId ? { walletId } : {}),
    ...(status ? { status: status as (typeof transactionStatuses)[number] } : {}),
    ...(intentKind ? { intentKind: intentKind as (typeof intentKinds)[number] } : {}),
    limit: 25,
  };
  const list = useInfiniteQuery(trpc.transactions.list.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined, refetchInterval: 3_000 }));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap gap-2">
        <Select aria-label="Status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">Any status</option>
          {transactionStatuses.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </Select>
        <Select aria-label="Intent" value={intentKind} onChange={(e) => setIntentKind(e.target.value)}>
          <option value="">Any intent</option>
          {intentKinds.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </Select>
      </div>
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : rows.length === 0 ? (
        <Empty title={status || intentKind ? 'No transaction matches these filters' : 'No transactions yet'}>
          Transfers and <code>sign-transaction</code> calls with <code>broadcast: true</code> create records.
        </Empty>
      ) : (
        <>
          <Table head={['Created', 'Status', 'Intent', 'Chain', 'Hash', 'To', 'Value', ...(walletId ? [] : ['Wallet']), 'Failure']}>
            {rows.map((tx) => (
              <tr key={tx.transactionId} data-testid={`tx-${tx.transactionId}`} className="hover:bg-slate-50">
                <Td className="whitespace-nowrap">
                  <Link className="text-indigo-600 hover:underline" href={`/transactions/${tx.transactionId}`}>
                    {formatDate(tx.createdAt)}
                  </Link>
                </Td>
                <Td>
                  <Badge value={tx.status} />
                </Td>
                <Td>
                  {tx.intentKind}
                  {tx.serviceInitiated === 'nonce_gap_filler' ? <GapFillerBadge /> : null}
                </Td>
                <Td>{tx.chainId ? `EVM ${tx.chainId}` : (tx.network ?? tx.walletType)}</Td>
                <Td>
                  <Mono title={tx.hash ?? undefined}>{short(tx.hash)}</Mono>
                </Td>
                <Td>
                  <Mono title={tx.to}>{short(tx.to, 8, 4)}</Mono>
                </Td>
                <Td>{tx.value ?? '—'}</Td>
                {walletId ? null : (
                  <Td>
                    <Link className="text-indigo-600 hover:underline" href={`/wallets/${tx.walletId}`}>
                      <Mono>{short(tx.walletId, 8, 4)}</Mono>
                    </Link>
                  </Td>
                )}
                <Td>{tx.failureCode ?? tx.failureStage ?? '—'}</Td>
              </tr>
            ))}
          </Table>
          <LoadMore list={list} />
        </>
      )}
    </div>
  );
}
