'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { CaseAmount } from '../amount';
import { actionLabel, amountLabel, approvalCount, chainLabel, eligibilityLabel, isCancellable, statusTimes } from '@/lib/approval-cases';
import { decisionNote, partnerDecisionLabel, reviewerLabel } from '@/lib/partner-reviews';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';
import type { ScopeLocation } from '../scopes/shared';
import { Badge, Button, Card, DefinitionList, ErrorBox, formatDate, Loading, Mono, Table, Td } from '../ui';
import type { ApprovalCase } from './case-list';
import { DecideReview } from './partner-reviews';
import { CopyableValue, None } from '../values';

function Stages({ stages }: { stages: ApprovalCase['stages'] }) {
  return (
    <Table head={['Stage', 'Eligible', 'Approvals', 'Approved by', 'Completed']}>
      {stages.map((stage) => (
        <tr key={stage.id} data-testid={`case-stage-${stage.id}`}>
          <Td>
            <Mono>{stage.id}</Mono> <span className="text-xs text-slate-400">requirement {stage.requirementId}</span>
          </Td>
          <Td>{eligibilityLabel(stage)}</Td>
          <Td>{approvalCount(stage)}</Td>
          <Td>
            {stage.approvals.length === 0 ? (
              <span className="text-slate-400">none yet</span>
            ) : (
              <ul className="flex gap-3">
                {stage.approvals.map((a) => (
                  <li key={a.userId}>
                    <CopyableValue value={a.userId} label="approver's user id" width="sm" /> <span className="text-xs text-slate-500">{formatDate(a.at)}</span>
                  </li>
                ))}
              </ul>
            )}
          </Td>
          <Td>{formatDate(stage.completedAt)}</Td>
        </tr>
      ))}
    </Table>
  );
}

/** Owners and developers cancel a pending case, after a second click; the API's refusal is shown as it is. */
function CancelCase({ location, caseId }: { location: ScopeLocation; caseId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const cancel = useMutation(
    trpc.approvalCases.cancel.mutationOptions({
      onSuccess: () => {
        setConfirming(false);
        void queryClient.invalidateQueries({ queryKey: trpc.approvalCases.pathKey() });
      },
    }),
  );
  return (
    <div className="flex items-center gap-2">
      {cancel.error ? <ErrorBox title="The case was not cancelled" error={cancel.error} /> : null}
      {confirming ? (
        <>
          <span className="text-xs text-slate-600">Its request can never sign under this key.</span>
          <Button variant="danger" disabled={cancel.isPending} onClick={() => cancel.mutate({ ...location, caseId })}>
            Confirm cancel
          </Button>
          <Button variant="secondary" onClick={() => setConfirming(false)}>
            Keep
          </Button>
        </>
      ) : (
        <Button variant="danger" onClick={() => setConfirming(true)}>
          Cancel case
        </Button>
      )}
    </div>
  );
}

/** One case: its status and every status time, the request it gates, each stage with who approved when, the rejection. */
export function CaseDetail({ location, caseId, onClose }: { location: ScopeLocation; caseId: string; onClose: () => void }) {
  const trpc = useTRPC();
  const { canWrite, staff } = useSession();
  // Set when the app's decision answered with another status than the one asked for.
  const [reviewNote, setReviewNote] = useState<string | null>(null);
  const found = useQuery(trpc.approvalCases.get.queryOptions({ ...location, caseId }));
  const close = (
    <Button variant="secondary" onClick={onClose}>
      Close
    </Button>
  );
  if (found.isPending) return <Loading />;
  if (found.error) return <ErrorBox title="Case not available" error={found.error} />;
  const c = found.data;
  const transfer = c.request.transfer;
  // Owners only: the use case answers 403 to developers and support.
  const decidable = staff?.role === 'owner' && c.partnerReview?.decision === null && isCancellable(c.status);
  return (
    <Card
      title={
        <span className="flex items-center gap-2">
          Case <Mono>{c.caseId}</Mono> <Badge value={c.status} />
        </span>
      }
      actions={
        <>
          {canWrite && isCancellable(c.status) ? <CancelCase location={location} caseId={c.caseId} /> : null}
          {close}
        </>
      }
    >
      <div className="space-y-6" data-testid="case-detail" data-status={c.status}>
        <DefinitionList
          items={[
            ['Status', <Badge key="s" value={c.status} />],
            ['Why it ended', c.terminalReason],
            ['Wallet', <Link key="w" className="text-indigo-600 hover:underline" href={`/wallets/${c.walletId}`}><Mono>{c.walletId}</Mono></Link>],
            ['Authorization scope', c.authorizationScopeId ? <Mono key="sc">{c.authorizationScopeId}</Mono> : null],
            ['Binding revision', c.bindingRevision === null ? null : String(c.bindingRevision)],
            ['Initiator', c.initiatorUserId ? <Mono key="i">{c.initiatorUserId}</Mono> : null],
            ['API key', <Mono key="k">{c.apiKeyId}</Mono>],
            ['Idempotency-Key', c.idempotencyKey ? <Mono key="ik">{c.idempotencyKey}</Mono> : null],
            ['Expires', formatDate(c.expiresAt)],
          ]}
        />
        <section aria-label="Gated request" className="space-y-2">
          <h3 className="font-medium text-slate-800">Request</h3>
          <DefinitionList
            items={[
              ['Action', actionLabel(c.request.action)],
              ['Operation', c.request.operation],
              ['Chain', chainLabel(c.request.chain)],
              ['Amount', transfer ? <CaseAmount key="am" request={c.request} /> : null],
              ['Amount (base units)', amountLabel(transfer)],
              ['Recipient', transfer ? <Mono key="to">{transfer.to}</Mono> : null],
              ['Request hash', <Mono key="h">{c.requestHash}</Mono>],
            ]}
          />
        </section>
        <section aria-label="Stages" className="space-y-2">
          <h3 className="font-medium text-slate-800">Stages</h3>
          {c.stages.length > 0 ? <Stages stages={c.stages} /> : <None />}
        </section>
        {c.partnerReview ? (
          <section aria-label="Partner review" className="space-y-2" data-testid="case-partner-review" data-decision={c.partnerReview.decision ?? 'none'}>
            <h3 className="font-medium text-slate-800">Partner review</h3>
            <DefinitionList
              items={[
                ['Decision', <Badge key="d" value={partnerDecisionLabel(c.partnerReview.decision)} />],
                ['When', c.partnerReview.decidedAt ? formatDate(c.partnerReview.decidedAt) : null],
                ['By', c.partnerReview.decidedBy ? <Mono key="b" title={c.partnerReview.decidedBy.id ?? undefined}>{reviewerLabel(c.partnerReview.decidedBy)}</Mono> : null],
              ]}
            />
            {decidable ? <DecideReview location={location} reviewId={c.caseId} onDecided={(view, asked) => setReviewNote(decisionNote(asked, view.status))} /> : null}
            {reviewNote ? <p className="text-xs text-slate-600">{reviewNote}</p> : null}
          </section>
        ) : null}
        {c.rejectedBy ? (
          <section aria-label="Rejection" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-rose-900">
            Rejected by <Mono>{c.rejectedBy.userId}</Mono> at stage <Mono>{c.rejectedBy.stageId}</Mono> on {formatDate(c.rejectedBy.at)}
          </section>
        ) : null}
        <section aria-label="Status times" className="space-y-2">
          <h3 className="font-medium text-slate-800">Status times</h3>
          <DefinitionList items={statusTimes(c).map(([label, at]): [string, string | null] => [label, at ? formatDate(at) : null])} />
        </section>
        <section aria-label="Requirements" className="space-y-2">
          <h3 className="font-medium text-slate-800">Requirements</h3>
          <ul className="list-inside list-disc">
            {c.requirements.map((r) => (
              <li key={`${r.policyId}:${r.policyVersion}:${r.ruleId}:${r.requirementId}`}>
                <Mono>{`${r.policyId} v${r.policyVersion}`}</Mono>, rule <Mono>{r.ruleId}</Mono>, requirement <Mono>{r.requirementId}</Mono>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </Card>
  );
}
