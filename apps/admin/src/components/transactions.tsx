'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { graphql } from '@/lib/graphql';
import { intentKinds, transactionStatuses } from '@/lib/schemas';
import { gasCostInEth, reviewHref, stageMeaning } from '@/lib/sponsored-records';
import { useTRPC } from '@/lib/trpc';
import { Amount, useChains } from './amount';
import { BatchCallsSummary } from './batch-calls';
import { CopyableValue } from './values';
import { Badge, Button, Card, DefinitionList, Empty, ErrorBox, formatDate, Input, Loading, LoadMore, Mono, Select, short, Table, Td } from './ui';

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

/** Marks a sponsored record (`executionMode: 'sponsored'`): a user operation whose gas the service paid. */
export function SponsoredBadge() {
  return (
    <span
      data-testid="sponsored-badge"
      title="Sponsored: an ERC-4337 user operation whose gas the service paid from the paymaster deposit"
      className="ml-1.5 inline-block rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-800"
    >
      sponsored
    </span>
  );
}

/** The fields of a record (tRPC `transactions.get`) the sponsored section reads. */
export interface SponsoredRecord {
  projectId: string;
  executionMode: string;
  stage?: string | null;
  reviewId?: string | null;
  userOperationHash?: string | null;
  actualGasCost?: string | null;
  autoRetry?: { enabled: boolean; attempts: { hash: string | null; sentAt: string; outcome: string }[]; reason?: string } | undefined;
  hash: string | null;
  blockNumber: string | null;
  blockHash: string | null;
  monitoring?: { winningHash: string | null } | undefined;
}

/** The review's case (support GraphQL), for the environment of its link; null when it cannot be read. */
function useReviewCase(reviewId: string | null | undefined) {
  return useQuery({
    queryKey: ['sponsored-review-case', reviewId],
    enabled: !!reviewId,
    retry: false,
    queryFn: async () =>
      (
        await graphql<{ approvalCase: { projectId: string; environment: string; status: string } }>(
          'query ($id: ID!) { approvalCase(id: $id) { projectId environment status } }',
          { id: reviewId },
        )
      ).approvalCase,
  });
}

/**
 * A sponsored record's execution, read only: its stage and what it means, the user operation
 * hash, the gas the sponsor paid, the review it waits for, and the evidence the monitor resolved
 * it with (the bundle transaction, the transaction that included the operation, its block).
 */
export function SponsoredExecution({ tx }: { tx: SponsoredRecord }) {
  const review = useReviewCase(tx.reviewId);
  const cost = gasCostInEth(tx.actualGasCost);
  return (
    <section aria-label="Sponsored execution">
      <Card title="Sponsored execution">
        <DefinitionList
          items={[
            ['Execution mode', <span key="em" data-testid="tx-execution-mode">{tx.executionMode}</span>],
            [
              'Stage',
              tx.stage ? (
                <span key="st">
                  <span data-testid="tx-stage">{tx.stage}</span>
                  <span data-testid="tx-stage-meaning" className="ml-2 text-slate-500">{stageMeaning(tx.stage)}</span>
                </span>
              ) : null,
            ],
            ['User operation hash', tx.userOperationHash ? <span key="uo" data-testid="tx-user-operation-hash"><Mono>{tx.userOperationHash}</Mono></span> : null],
            [
              'Gas paid by the sponsor',
              cost ? (
                <span key="gc">
                  <span data-testid="tx-actual-gas-cost">{cost}</span> <span className="text-xs text-slate-500">{tx.actualGasCost} wei</span>
                </span>
              ) : null,
            ],
            [
              'Review',
              tx.reviewId ? (
                <Link
                  key="rv"
                  data-testid="tx-review"
                  className="text-indigo-600 hover:underline"
                  href={reviewHref(tx.reviewId, { projectId: review.data?.projectId ?? tx.projectId, environment: review.data?.environment ?? null })}
                >
                  <Mono>{tx.reviewId}</Mono>
                  {review.data ? ` (${review.data.status})` : null}
                </Link>
              ) : null,
            ],
            [
              'Submissions',
              tx.autoRetry && tx.autoRetry.attempts.length > 0 ? (
                <ul key="at" data-testid="tx-attempts" className="space-y-0.5">
                  {tx.autoRetry.attempts.map((a, i) => (
                    <li key={i}>
                      {a.outcome} · {a.sentAt} {a.hash ? <Mono>{a.hash}</Mono> : '(bundler)'}
                    </li>
                  ))}
                </ul>
              ) : null,
            ],
            ['Bundle transaction', tx.hash ? <span key="bt" data-testid="tx-bundle-hash"><Mono>{tx.hash}</Mono></span> : null],
            ['Including transaction', tx.monitoring?.winningHash ? <span key="wh" data-testid="tx-winning-hash"><Mono>{tx.monitoring.winningHash}</Mono></span> : null],
            ['Block', tx.blockNumber ? <span key="bn" data-testid="tx-evidence-block">{tx.blockNumber}</span> : null],
            ['Block hash', tx.blockHash ? <span key="bh" data-testid="tx-evidence-block-hash"><Mono>{tx.blockHash}</Mono></span> : null],
          ]}
        />
      </Card>
    </section>
  );
}

/** The list's filters, as the URL query names them (`/transactions?user=…&status=failed`). */
export const filterKeys = ['user', 'wallet', 'status', 'intent', 'chain', 'token', 'from', 'to'] as const;
export type Filters = Partial<Record<(typeof filterKeys)[number], string>>;

/** The filters kept in the URL query, so a filtered list is a link (the main list). */
export function useUrlFilters(): [Filters, (next: Filters) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters: Filters = Object.fromEntries(filterKeys.flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : [])));
  const set = (next: Filters) => {
    const query = new URLSearchParams(Object.entries(next).filter(([, v]) => v) as [string, string][]).toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  return [filters, set];
}

/** The user filter: applied a moment after typing stops. */
function UserFilter({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => onChange(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return <Input aria-label="User" className="w-56" placeholder="User identifier (starts with)" value={text} onChange={(e) => setText(e.target.value)} />;
}

/**
 * A project's records (or one wallet's), newest first, with support's filters (user, wallet,
 * status, intent, chain, token, dates) and amounts in the token's symbol and decimals. With
 * `filters`/`onFiltersChange` the caller keeps them (the main list: in the URL).
 */
export function TransactionList({ projectId, walletId, filters: given, onFiltersChange }: { projectId: string; walletId?: string; filters?: Filters; onFiltersChange?: (next: Filters) => void }) {
  const trpc = useTRPC();
  const chains = useChains();
  const [local, setLocal] = useState<Filters>({});
  const filters = given ?? local;
  const setFilters = onFiltersChange ?? setLocal;
  const update = (key: keyof Filters, value: string) => setFilters({ ...filters, [key]: value || undefined });
  const wallet = walletId ?? filters.wallet;
  const input = {
    projectId,
    ...(wallet ? { walletId: wallet } : {}),
    ...(filters.user ? { user: filters.user } : {}),
    ...(filters.status ? { status: filters.status as (typeof transactionStatuses)[number] } : {}),
    ...(filters.intent ? { intentKind: filters.intent as (typeof intentKinds)[number] } : {}),
    ...(filters.chain ? { chain: filters.chain } : {}),
    ...(filters.token ? { token: filters.token } : {}),
    ...(filters.from ? { from: filters.from } : {}),
    ...(filters.to ? { to: filters.to } : {}),
    limit: 25,
  };
  const list = useInfiniteQuery(trpc.transactions.list.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined, refetchInterval: 3_000 }));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = Object.values(filters).some(Boolean);
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Filters">
        {walletId ? null : <UserFilter value={filters.user ?? ''} onChange={(v) => update('user', v)} />}
        {walletId || !filters.wallet ? null : (
          <Button variant="secondary" onClick={() => update('wallet', '')} title="Show every wallet's records">
            Wallet {short(filters.wallet, 8, 4)} ✕
          </Button>
        )}
        <Select aria-label="Status" value={filters.status ?? ''} onChange={(e) => update('status', e.target.value)}>
          <option value="">Any status</option>
          {transactionStatuses.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </Select>
        <Select aria-label="Intent" value={filters.intent ?? ''} onChange={(e) => update('intent', e.target.value)}>
          <option value="">Any intent</option>
          {intentKinds.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </Select>
        <Select aria-label="Chain" value={filters.chain ?? ''} onChange={(e) => update('chain', e.target.value)}>
          <option value="">Any chain</option>
          {chains.map((c) => (
            <option key={c.chainId ?? c.network} value={c.chainId ?? c.network}>
              {c.name}
            </option>
          ))}
        </Select>
        <Select aria-label="Token" value={filters.token ?? ''} onChange={(e) => update('token', e.target.value)}>
          <option value="">Any token</option>
          <option value="native">Native currency</option>
          <option value="usdc">USDC</option>
        </Select>
        <label className="flex items-center gap-1 text-xs text-slate-500">
          From
          <Input type="date" aria-label="From" value={filters.from ?? ''} onChange={(e) => update('from', e.target.value)} />
        </label>
        <label className="flex items-center gap-1 text-xs text-slate-500">
          To
          <Input type="date" aria-label="To" value={filters.to ?? ''} onChange={(e) => update('to', e.target.value)} />
        </label>
      </div>
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : rows.length === 0 ? (
        <Empty title={filtered ? 'No transaction matches these filters' : 'No transactions yet'}>
          Transfers and <code>sign-transaction</code> calls with <code>broadcast: true</code> create records.
        </Empty>
      ) : (
        <>
          <Table head={['Created', 'Status', 'Intent', 'Chain', 'Hash', 'To', 'Amount', ...(walletId ? [] : ['User', 'Wallet'])]}>
            {rows.map((tx) => (
              <tr key={tx.transactionId} data-testid={`tx-${tx.transactionId}`} className="hover:bg-slate-50">
                <Td>
                  <Link className="text-indigo-600 hover:underline" href={`/transactions/${tx.transactionId}`}>
                    {formatDate(tx.createdAt)}
                  </Link>
                </Td>
                <Td>
                  <Badge value={tx.status} />
                  {tx.failureCode || tx.failureStage ? (
                    <span data-testid="tx-failure" className="ml-1 text-xs text-rose-700" title={tx.failureStage ? `failed at ${tx.failureStage}` : undefined}>
                      {tx.failureCode ?? tx.failureStage}
                    </span>
                  ) : null}
                </Td>
                <Td>
                  {tx.intentKind}
                  {tx.serviceInitiated === 'nonce_gap_filler' ? <GapFillerBadge /> : null}
                  {tx.executionMode === 'sponsored' ? <SponsoredBadge /> : null}
                </Td>
                <Td>
                  <span title={tx.chainId ? `EVM chain ${tx.chainId}` : tx.walletType}>{tx.chainId ?? tx.network ?? tx.walletType}</span>
                </Td>
                <Td>
                  <CopyableValue value={tx.hash} label="hash" width="sm" />
                </Td>
                <Td>{tx.calls ? <BatchCallsSummary calls={tx.calls} /> : <CopyableValue value={tx.to} label="recipient" width="xs" />}</Td>
                <Td>
                  <Amount value={tx.value} at={tx} />
                </Td>
                {walletId ? null : (
                  <>
                    <Td>
                      <span data-testid="tx-user">
                        <CopyableValue value={tx.userIdentifier} label="user" width="xs" mono={false} />
                      </span>
                    </Td>
                    <Td>
                      <CopyableValue value={tx.walletId} label="wallet id" href={`/wallets/${tx.walletId}`} width="xs" />
                    </Td>
                  </>
                )}
              </tr>
            ))}
          </Table>
          <LoadMore list={list} />
        </>
      )}
    </div>
  );
}
