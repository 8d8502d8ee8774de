import { Card, Mono, Table, Td } from '@/components/ui';
import { CopyableValue } from '@/components/values';

/** One call of a batch record (intentKind `calls`), as the record lists it. */
export interface BatchCallView {
  to: string;
  value: string;
  data: string;
  selector: string | null;
}

/** The calls of a batch record, in the order its one transaction ran them: target, 4-byte selector, value in wei. */
export function BatchCalls({ calls }: { calls: BatchCallView[] }) {
  return (
    <Card title={`Calls (${calls.length}, all or none)`}>
      <div data-testid="batch-calls">
        <Table head={['#', 'Target', 'Selector', 'Value (wei)']}>
          {calls.map((call, index) => (
            <tr key={index} data-testid={`batch-call-${index}`}>
              <Td>{index}</Td>
              <Td>
                <CopyableValue value={call.to} label="call target" width="md" />
              </Td>
              <Td>
                <Mono title={call.data}>{call.selector ?? 'none'}</Mono>
              </Td>
              <Td>{call.value}</Td>
            </tr>
          ))}
        </Table>
      </div>
    </Card>
  );
}

/** The list's To cell of a batch: how many calls, their targets on hover. */
export function BatchCallsSummary({ calls }: { calls: BatchCallView[] }) {
  return (
    <span data-testid="tx-calls" title={calls.map((c) => `${c.to} ${c.selector ?? ''}`.trim()).join('\n')}>
      {calls.length} {calls.length === 1 ? 'call' : 'calls'}
    </span>
  );
}
