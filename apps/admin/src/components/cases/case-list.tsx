'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { requestSummary } from '@/lib/approval-cases';
import { CaseAmount } from '../amount';
import { approvalCaseStatuses } from '@/lib/schemas';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';
import type { ScopeLocation } from '../scopes/shared';
import { Badge, Button, cx, Empty, ErrorBox, formatDate, Loading, LoadMore, Select, Table, Td } from '../ui';
import { CopyableValue } from '../values';

export type ApprovalCase = RouterOutputs['approvalCases']['get'];

/** The environment's approval cases, newest first, with a status filter; a row opens its detail. */
export function CaseList({ location, selected, onSelect }: { location: ScopeLocation; selected: string | null; onSelect: (caseId: string) => void }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState('');
  const input = { ...location, ...(status ? { status: status as (typeof approvalCaseStatuses)[number] } : {}), limit: 25 };
  const list = useInfiniteQuery(trpc.approvalCases.list.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined }));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div className="space-y-3">
      <Select aria-label="Case status" value={status} onChange={(e) => setStatus(e.target.value)}>
        <option value="">Any status</option>
        {approvalCaseStatuses.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </Select>
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <ErrorBox title="Cases not available" error={list.error} />
      ) : rows.length === 0 ? (
        <Empty title={status ? 'No case matches this status' : 'No approval cases yet'}>
          A signing or transfer request a require_approval rule pauses opens a case (403 <code>POLICY_REVIEW_REQUIRED</code>); it appears here.
        </Empty>
      ) : (
        <>
          <Table head={['Case', 'Status', 'Request', 'Amount', 'Recipient', 'Expires', 'Wallet', 'Created', '']} stickyLast>
            {rows.map((c) => {
              const summary = requestSummary(c.request);
              return (
                <tr key={c.caseId} data-testid={`case-${c.caseId}`} data-status={c.status} className={cx('hover:bg-slate-50', selected === c.caseId && 'bg-indigo-50')}>
                  <Td>
                    <CopyableValue value={c.caseId} label="case id" width="xs" />
                  </Td>
                  <Td>
                    <Badge value={c.status} />
                  </Td>
                  <Td>
                    {summary.action} <span className="text-xs text-slate-500">{summary.chain}</span>
                  </Td>
                  <Td>
                    <CaseAmount request={c.request} />
                  </Td>
                  <Td>
                    <CopyableValue value={summary.recipient} label="recipient" width="xs" />
                  </Td>
                  <Td>{formatDate(c.expiresAt)}</Td>
                  <Td>
                    <CopyableValue value={c.walletId} label="wallet id" href={`/wallets/${c.walletId}`} width="xs" />
                  </Td>
                  <Td>{formatDate(c.createdAt)}</Td>
                  <Td sticky>
                    <Button variant="secondary" aria-label={`Open case ${c.caseId}`} onClick={() => onSelect(c.caseId)}>
                      Open
                    </Button>
                  </Td>
                </tr>
              );
            })}
          </Table>
          <LoadMore list={list} />
        </>
      )}
    </div>
  );
}
