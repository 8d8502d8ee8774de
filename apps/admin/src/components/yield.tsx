'use client';

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { yieldOperationStatuses } from '@/lib/schemas';
import { useSession } from '@/lib/session';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';
import { UsdcAmount } from './amount';
import { Badge, Button, Empty, ErrorBox, formatDate, Loading, LoadMore, Mono, Select, Table, Td } from './ui';
import { CopyableValue, None } from './values';

type Operation = RouterOutputs['yield']['list']['data'][number];

/** The signed steps of an operation, each linking to its transaction record. */
function Steps({ operation }: { operation: Operation }) {
  if (operation.transactions.length === 0) return <span className="text-slate-400">none signed</span>;
  return (
    <ul className="flex gap-3">
      {operation.transactions.map((step) => (
        <li key={step.transactionId} data-testid={`yield-step-${step.phase}`} className="flex items-center gap-1.5">
          <span className="text-xs text-slate-500">{step.phase}</span>
          <Badge value={step.status} />
          <CopyableValue value={step.hash} label={`${step.phase} hash`} href={`/transactions/${step.transactionId}`} width="xs" />
        </li>
      ))}
    </ul>
  );
}

/**
 * A project's yield operations (or one wallet's), newest first, with a status filter. Owners and
 * developers get a Cancel button on unsigned work (the API decides; a refusal is shown here).
 */
export function YieldOperationList({ projectId, walletId }: { projectId: string; walletId?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const [status, setStatus] = useState('');
  const input = {
    projectId,
    ...(walletId ? { walletId } : {}),
    ...(status ? { status: status as (typeof yieldOperationStatuses)[number] } : {}),
    limit: 25,
  };
  const list = useInfiniteQuery(trpc.yield.list.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined, refetchInterval: 3_000 }));
  const cancel = useMutation(trpc.yield.cancel.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.yield.list.pathKey() }) }));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div className="space-y-3">
      <Select aria-label="Yield status" value={status} onChange={(e) => setStatus(e.target.value)}>
        <option value="">Any status</option>
        {yieldOperationStatuses.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </Select>
      {cancel.error ? <ErrorBox title="The operation was not cancelled" error={cancel.error} /> : null}
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : rows.length === 0 ? (
        <Empty title={status ? 'No yield operation matches this status' : 'No yield operations yet'}>
          Deposits and withdrawals (<code>POST /v1/wallets/&#123;walletId&#125;/yield/deposits</code>, <code>…/withdrawals</code>) appear here.
        </Empty>
      ) : (
        <>
          <Table head={['Operation', 'Created', 'Status', 'Action', 'Amount', 'Market', ...(walletId ? [] : ['Wallet']), 'Steps', 'Error', '']} stickyLast>
            {rows.map((op) => (
              <tr key={op.id} data-testid={`yield-${op.id}`} data-status={op.status} className="hover:bg-slate-50">
                <Td>
                  <CopyableValue value={op.id} label="operation id" width="xs" />
                </Td>
                <Td>{formatDate(op.createdAt)}</Td>
                <Td>
                  <Badge value={op.status} />
                </Td>
                <Td>{op.action}</Td>
                <Td>
                  <UsdcAmount amount={op.amount} chainId={op.chainId} />
                </Td>
                <Td>
                  <Mono>{op.marketId}</Mono>
                </Td>
                {walletId ? null : (
                  <Td>
                    <CopyableValue value={op.walletId} label="wallet id" href={`/wallets/${op.walletId}`} width="xs" />
                  </Td>
                )}
                <Td>
                  <Steps operation={op} />
                </Td>
                <Td>{op.error ? <span title={op.error.message ?? undefined}>{op.error.code}</span> : <None />}</Td>
                <Td sticky className="text-right">
                  {canWrite && op.cancellable ? (
                    <Button
                      variant="danger"
                      disabled={cancel.isPending}
                      onClick={() => {
                        if (window.confirm(`Cancel this ${op.action} of ${op.amount} USDC? Nothing of it has been signed.`)) cancel.mutate({ operationId: op.id });
                      }}
                    >
                      Cancel
                    </Button>
                  ) : null}
                </Td>
              </tr>
            ))}
          </Table>
          <LoadMore list={list} />
        </>
      )}
    </div>
  );
}

/** The wallet's position in every market of the catalog, read from the chain at one block per market. */
export function YieldPositions({ walletId }: { walletId: string }) {
  const trpc = useTRPC();
  const positions = useQuery(trpc.yield.positions.queryOptions({ walletId }, { refetchInterval: 10_000 }));
  if (positions.isPending) return <Loading label="Reading positions…" />;
  if (positions.error) return <ErrorBox title="Positions could not be read" error={positions.error} />;
  if (positions.data.length === 0) return <Empty title="No yield markets for this wallet">Yield is available for EVM wallets only.</Empty>;
  return (
    <Table head={['Market', 'Supplied', 'Withdrawable now', 'Shares', 'Block']}>
      {positions.data.map(({ market, position, error }) => (
        <tr key={market.id} data-testid={`position-${market.id}`}>
          <Td>
            <span className="font-medium">{market.name}</span> <span className="font-mono text-xs text-slate-400">{market.id}</span>
          </Td>
          {position ? (
            <>
              <Td>
                <UsdcAmount amount={position.suppliedBalance} chainId={market.chainId} />
              </Td>
              <Td>
                <UsdcAmount amount={position.withdrawal.availableAmount} chainId={market.chainId} />
              </Td>
              <Td>{'shares' in position ? position.shares.balance : <None />}</Td>
              <Td>{position.blockNumber}</Td>
            </>
          ) : (
            <td colSpan={4} className="px-3 py-2 text-rose-700">
              {error?.message} <span className="font-mono text-xs">({error?.code})</span>
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}
