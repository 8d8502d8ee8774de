'use client';

import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { requestSummary } from '@/lib/approval-cases';
import { CaseAmount } from '../amount';
import { decisionNote, isDecidable, reviewerLabel, timeLeft, withDecisions } from '@/lib/partner-reviews';
import { partnerReviewStatuses } from '@/lib/schemas';
import { useSession } from '@/lib/session';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';
import type { ScopeLocation } from '../scopes/shared';
import { Badge, Button, Empty, ErrorBox, formatDate, Loading, LoadMore, Select, Table, Td } from '../ui';
import { CopyableValue } from '../values';

export type PartnerReview = RouterOutputs['partnerReviews']['get'];
type Status = (typeof partnerReviewStatuses)[number];

/** The current time, once a second: the queue's "time left" counts down. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * Approve at once; reject after a second click. The answer (the review's new or final status) goes
 * to `onDecided`. The queue and the case detail both decide with it (a review id is its case id).
 */
export function DecideReview({ location, reviewId, onDecided }: { location: ScopeLocation; reviewId: string; onDecided: (view: PartnerReview, asked: 'approve' | 'reject') => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  // The queue, the case list and the case detail each show the decision.
  const settled = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.approvalCases.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.partnerReviews.pathKey() });
  };
  const approve = useMutation(trpc.partnerReviews.approve.mutationOptions({ onSuccess: (view) => (onDecided(view, 'approve'), settled()) }));
  const reject = useMutation(trpc.partnerReviews.reject.mutationOptions({ onSuccess: (view) => (onDecided(view, 'reject'), settled()) }));
  const input = { ...location, reviewId };
  const busy = approve.isPending || reject.isPending;
  const error = approve.error ?? reject.error;
  return (
    <div className="flex items-center gap-2">
      {confirming ? (
        <>
          <span className="text-xs text-slate-600">The request can never sign under its key.</span>
          <Button variant="danger" disabled={busy} aria-label={`Confirm reject review ${reviewId}`} onClick={() => reject.mutate(input)}>
            Confirm reject
          </Button>
          <Button variant="secondary" onClick={() => setConfirming(false)}>
            Keep
          </Button>
        </>
      ) : (
        <>
          <Button disabled={busy} aria-label={`Approve review ${reviewId}`} onClick={() => approve.mutate(input)}>
            Approve
          </Button>
          <Button variant="danger" disabled={busy} aria-label={`Reject review ${reviewId}`} onClick={() => setConfirming(true)}>
            Reject
          </Button>
        </>
      )}
      {error ? <ErrorBox title="The review was not decided" error={error} /> : null}
    </div>
  );
}

/**
 * Partner reviews of the environment (a require_approval rule without approvalRequirement: the
 * app itself approves), pending ones first; owners approve or reject, and the row shows the answer.
 */
export function PartnerReviewQueue({ location }: { location: ScopeLocation }) {
  const trpc = useTRPC();
  const { staff } = useSession();
  const isOwner = staff?.role === 'owner';
  const now = useNow();
  const [status, setStatus] = useState<Status>('pending');
  const [decided, setDecided] = useState<Record<string, PartnerReview>>({});
  const [notes, setNotes] = useState<Record<string, string>>({});
  const list = useInfiniteQuery(
    trpc.partnerReviews.list.infiniteQueryOptions({ ...location, status, limit: 25 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const fetched = list.data?.pages.flatMap((p) => p.data) ?? [];
  // Only the pending queue keeps the rows this session decided; another filter shows the list as it is.
  const rows = status === 'pending' ? withDecisions(fetched, decided) : fetched;
  const onDecided = (view: PartnerReview, asked: 'approve' | 'reject') => {
    setDecided((d) => ({ ...d, [view.reviewId]: view }));
    const note = decisionNote(asked, view.status);
    setNotes((n) => {
      const { [view.reviewId]: _, ...rest } = n;
      return note ? { ...rest, [view.reviewId]: note } : rest;
    });
  };
  return (
    <div className="space-y-3">
      <div className="flex items-center gap-3">
        <Select aria-label="Review status" value={status} onChange={(e) => setStatus(e.target.value as Status)}>
          {partnerReviewStatuses.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </Select>
        {isOwner ? null : <span className="text-xs text-slate-500">Only owners approve or reject partner reviews.</span>}
      </div>
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <ErrorBox title="Partner reviews not available" error={list.error} />
      ) : rows.length === 0 ? (
        <Empty title={status === 'pending' ? 'No review is waiting' : `No ${status} review`}>
          A request a require_approval rule without <code>approvalRequirement</code> pauses (403 <code>POLICY_REVIEW_REQUIRED</code> with a{' '}
          <code>reviewId</code>) waits here for the app&apos;s approval, 5 minutes at most.
        </Empty>
      ) : (
        <>
          <Table head={['Review', 'Status', 'Request', 'Amount', 'Recipient', 'Expires', 'Wallet', 'Created', '']} stickyLast>
            {rows.map((r) => {
              const summary = requestSummary(r.request);
              return (
                <tr key={r.reviewId} data-testid={`review-${r.reviewId}`} data-status={r.status}>
                  <Td>
                    <CopyableValue value={r.reviewId} label="review id" width="xs" />
                  </Td>
                  <Td>
                    <Badge value={r.status} />
                    {r.decidedBy ? <span className="ml-1 text-xs text-slate-500">by {reviewerLabel(r.decidedBy)}</span> : null}
                  </Td>
                  <Td>
                    {summary.action} <span className="text-xs text-slate-500">{summary.chain}</span>
                  </Td>
                  <Td>
                    <CaseAmount request={r.request} />
                  </Td>
                  <Td>
                    <CopyableValue value={summary.recipient} label="recipient" width="xs" />
                  </Td>
                  <Td>
                    {/* A pending review shows the time it has left, its expiry on hover. */}
                    {isDecidable(r.status) ? (
                      <span className="text-amber-700" title={formatDate(r.expiresAt)}>
                        {timeLeft(r.expiresAt, now)}
                      </span>
                    ) : (
                      formatDate(r.expiresAt)
                    )}
                  </Td>
                  <Td>
                    <CopyableValue value={r.walletId} label="wallet id" href={`/wallets/${r.walletId}`} width="xs" />
                  </Td>
                  <Td>{formatDate(r.createdAt)}</Td>
                  <Td sticky>
                    {isOwner && isDecidable(r.status) ? <DecideReview location={location} reviewId={r.reviewId} onDecided={onDecided} /> : null}
                    {notes[r.reviewId] ? <span className="text-xs text-slate-600">{notes[r.reviewId]}</span> : null}
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
