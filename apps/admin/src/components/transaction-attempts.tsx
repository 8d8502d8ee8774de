'use client';

import { formatGwei, type AutoRetryView } from '@/lib/auto-retry';
import { Badge, Card, DefinitionList, formatDate, Table, Td } from './ui';
import { CopyableValue, None } from './values';

function Fee({ wei }: { wei: string | undefined }) {
  if (wei === undefined) return <None />;
  return (
    <span title={`${wei} wei`}>
      {formatGwei(wei)} <span className="text-xs text-slate-500">{wei} wei</span>
    </span>
  );
}

/**
 * Managed automatic retry of a record, read only: whether it is on, its fee ceiling, every attempt
 * (the record's own transaction first) with its fees or blockhash, when it was sent and its fate,
 * and why the last attempt was made (or why none is made now).
 */
export function TransactionAttempts({ autoRetry }: { autoRetry: AutoRetryView }) {
  const showBlockhash = autoRetry.attempts.some((a) => a.recentBlockhash);
  return (
    <section aria-label="Automatic retry">
      <Card title="Automatic retry">
        <div className="space-y-4">
          <DefinitionList
            items={[
              ['Retry', <span key="on" data-testid="tx-auto-retry-enabled">{autoRetry.enabled ? 'on' : 'off'}</span>],
              ['Fee ceiling', autoRetry.maxFeePerGas ? <span key="c" data-testid="tx-auto-retry-ceiling"><Fee wei={autoRetry.maxFeePerGas} /></span> : null],
              ['Reason of the last attempt', autoRetry.reason ? <span key="r" data-testid="tx-auto-retry-reason">{autoRetry.reason}</span> : null],
            ]}
          />
          <Table head={['#', 'Hash', 'Max fee per gas', 'Max priority fee per gas', ...(showBlockhash ? ['Recent blockhash'] : []), 'Sent', 'Outcome']}>
            {autoRetry.attempts.map((attempt, i) => (
              <tr key={attempt.hash ?? i} data-testid="tx-attempt">
                <Td>{i + 1}</Td>
                <Td>
                  <CopyableValue value={attempt.hash} label="hash" width="md" />
                </Td>
                <Td>
                  <span data-testid="tx-attempt-max-fee">
                    <Fee wei={attempt.maxFeePerGas} />
                  </span>
                </Td>
                <Td>
                  <Fee wei={attempt.maxPriorityFeePerGas} />
                </Td>
                {showBlockhash ? (
                  <Td>
                    <CopyableValue value={attempt.recentBlockhash} label="recent blockhash" width="sm" />
                  </Td>
                ) : null}
                <Td>{formatDate(attempt.sentAt)}</Td>
                <Td>
                  <span data-testid="tx-attempt-outcome">
                    <Badge value={attempt.outcome} />
                  </span>
                </Td>
              </tr>
            ))}
          </Table>
        </div>
      </Card>
    </section>
  );
}
