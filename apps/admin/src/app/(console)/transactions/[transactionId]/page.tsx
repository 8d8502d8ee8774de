'use client';

import { Amount } from '@/components/amount';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { BatchCalls } from '@/components/batch-calls';
import { TransactionAttempts } from '@/components/transaction-attempts';
import { GapFillerBadge, SponsoredBadge, SponsoredExecution } from '@/components/transactions';
import { Badge, Button, Card, DefinitionList, Empty, ErrorBox, formatDate, Loading, Mono, PageHeader, Table, Td } from '@/components/ui';
import { CopyableValue, None } from '@/components/values';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';

const terminal = new Set(['confirmed', 'reverted', 'failed']);
/** A delivery that will not change by itself: an event still waiting for the dispatcher will. */
const settled = (d: { status: string; dispatched: boolean }) => d.status !== 'pending' && (d.status !== 'not_sent' || d.dispatched);

export default function TransactionPage() {
  const { transactionId } = useParams<{ transactionId: string }>();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const record = useQuery(
    trpc.transactions.get.queryOptions(
      { transactionId },
      // Until it resolves and its events are dispatched and delivered, keep it fresh.
      { refetchInterval: (q) => (q.state.data && terminal.has(q.state.data.status) && q.state.data.webhookDeliveries.every(settled) ? false : 2_000) },
    ),
  );
  const approvalCase = useQuery(trpc.approvalCases.ofRecord.queryOptions({ transactionId }));
  const resend = useMutation(
    trpc.webhooks.resend.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.transactions.get.queryKey({ transactionId }) }),
    }),
  );
  if (record.isPending) return <Loading />;
  if (record.error) return <ErrorBox title="Record not available" error={record.error} />;
  const tx = record.data;
  const m = tx.monitoring;
  return (
    <>
      <PageHeader title={<span className="flex items-center gap-3">Transaction <Badge value={tx.status} /></span>} subtitle={<Mono>{tx.transactionId}</Mono>} />
      <div className="space-y-6">
        <Card title="Record">
          <DefinitionList
            items={[
              ['Status', <span key="s" data-testid="tx-status"><Badge value={tx.status} /></span>],
              [
                'Intent',
                <span key="i">
                  {tx.intentKind}
                  {tx.serviceInitiated === 'nonce_gap_filler' ? <GapFillerBadge /> : null}
                  {tx.executionMode === 'sponsored' ? <SponsoredBadge /> : null}
                </span>,
              ],
              ['Hash', tx.hash ? <Mono key="h">{tx.hash}</Mono> : null],
              ['Chain', tx.chainId ? `EVM chain ${tx.chainId}` : tx.network],
              ['Block', tx.blockNumber],
              ['Block hash', tx.blockHash ? <Mono key="bh">{tx.blockHash}</Mono> : null],
              ['Nonce', tx.nonce === null ? null : String(tx.nonce)],
              // A batch has no single recipient or amount: its calls are listed below.
              ...((tx.calls
                ? []
                : [
                    ['To', tx.to ? <Mono key="to">{tx.to}</Mono> : null],
                    ['Amount', tx.value === null ? null : <Amount key="am" value={tx.value} at={tx} />],
                    ['Value (base units)', tx.value ?? null],
                    ['Token', tx.tokenAddress ? <Mono key="tk">{tx.tokenAddress}</Mono> : 'native'],
                  ]) as [string, React.ReactNode][]),
              ['Wallet', <Link key="w" className="text-indigo-600 hover:underline" href={`/wallets/${tx.walletId}`}><Mono>{tx.walletId}</Mono></Link>],
              ['Wallet type', tx.walletType],
              ['Project', <Mono key="p">{tx.projectId}</Mono>],
              ['Created', formatDate(tx.createdAt)],
              ['Submitted', formatDate(tx.submittedAt)],
              ['Resolved', formatDate(tx.resolvedAt)],
              ...(approvalCase.data
                ? ([
                    [
                      'Approval case',
                      <Link
                        key="ac"
                        data-testid="tx-approval-case"
                        className="text-indigo-600 hover:underline"
                        href={`/cases?project=${approvalCase.data.projectId}&env=${approvalCase.data.environment}&case=${approvalCase.data.caseId}`}
                      >
                        <Mono>{approvalCase.data.caseId}</Mono> ({approvalCase.data.status})
                      </Link>,
                    ],
                  ] as [string, React.ReactNode][])
                : []),
              ...(tx.cancellationOf ? ([['Cancellation of', <Link key="c" className="text-indigo-600 hover:underline" href={`/transactions/${tx.cancellationOf}`}><Mono>{tx.cancellationOf}</Mono></Link>]] as [string, React.ReactNode][]) : []),
            ]}
          />
        </Card>
        {tx.calls ? <BatchCalls calls={tx.calls} /> : null}
        {tx.executionMode === 'sponsored' ? <SponsoredExecution tx={tx} /> : null}
        {tx.executionMode !== 'sponsored' && tx.autoRetry ? <TransactionAttempts autoRetry={tx.autoRetry} /> : null}
        <div className="grid gap-6 md:grid-cols-2">
          <Card title="Failure">
            {tx.failureStage || tx.failureCode || tx.failureMessage ? (
              <DefinitionList
                items={[
                  ['Stage', tx.failureStage],
                  ['Code', tx.failureCode],
                  ['Message', tx.failureMessage],
                ]}
              />
            ) : (
              <p className="text-slate-500">No failure recorded.</p>
            )}
          </Card>
          <Card title="Monitoring outcome">
            {m ? (
              <div data-testid="monitoring">
                <DefinitionList items={Object.entries(m).map(([k, v]) => [k, v === null || v === undefined ? null : typeof v === 'object' ? <Mono key={k}>{JSON.stringify(v)}</Mono> : String(v)])} />
              </div>
            ) : (
              <p className="text-slate-500">No monitoring data.</p>
            )}
          </Card>
        </div>
        <Card title="Webhook deliveries">
          {resend.error ? <ErrorBox title="Not resent" error={resend.error} /> : null}
          {tx.webhookDeliveries.length === 0 ? (
            <Empty title="No events for this record yet">Events are written when the record is broadcast and when it resolves.</Empty>
          ) : (
            <Table head={['Event', 'Type', 'Endpoint', 'Status', 'Attempts', 'Last attempt', '']} stickyLast>
              {tx.webhookDeliveries.map((d) => {
                const last = d.attempts.at(-1);
                return (
                  <tr key={`${d.eventId}:${d.deliveryId ?? 'none'}`} data-testid="tx-delivery">
                    <Td>
                      <CopyableValue value={d.eventId} label="event id" width="sm" />
                    </Td>
                    <Td>{d.type}</Td>
                    <Td>{d.url ? <CopyableValue value={d.url} label="endpoint URL" width="md" tail={12} /> : <span className="text-slate-400">no endpoint</span>}</Td>
                    <Td>
                      <Badge value={d.status} />
                    </Td>
                    <Td>{d.attempts.length}</Td>
                    <Td>{last ? `${formatDate(last.attemptedAt)} · ${last.statusCode ?? last.error ?? 'no answer'} · ${last.latencyMs} ms` : <None />}</Td>
                    <Td sticky>
                      {canWrite && d.apiKeyId ? (
                        <Button variant="secondary" disabled={resend.isPending} onClick={() => resend.mutate({ apiKeyId: d.apiKeyId!, eventId: d.eventId })}>
                          Resend
                        </Button>
                      ) : null}
                    </Td>
                  </tr>
                );
              })}
            </Table>
          )}
        </Card>
      </div>
    </>
  );
}
