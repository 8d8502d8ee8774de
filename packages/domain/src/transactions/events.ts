import { newEventId } from '../events/events.ts';
import type { NewEvent, TransactionRecord } from '../ports.ts';

/**
 * The events of a broadcast record, with exactly the spec's `data` fields. `userId` is the user
 * who claimed the wallet, null for the API-key-managed wallets REST broadcasts from.
 */
function identifying(record: TransactionRecord, isDevnet: boolean) {
  return {
    userId: null,
    walletId: record.walletId,
    txHash: record.hash,
    type: record.walletType,
    ...(record.walletType === 'EVM' ? { evmChainId: record.chainId } : {}),
    isDevnet,
  };
}

const event = (record: TransactionRecord, type: string, data: Record<string, unknown>): NewEvent => ({
  id: newEventId(),
  projectId: record.projectId,
  type,
  data,
  transactionId: record.id,
});

export function broadcastedEvents(record: TransactionRecord, isDevnet: boolean, at: Date): NewEvent[] {
  return [event(record, 'send.broadcasted', { ...identifying(record, isDevnet), broadcastedAt: at.toISOString() })];
}

/**
 * Events of a record that reached `confirmed`, `reverted` or `failed`. Never called for a monitoring
 * deadline alone (the record stays `submitted`).
 */
export function resolvedEvents(record: TransactionRecord, isDevnet: boolean, at: Date): NewEvent[] {
  const resolvedAt = at.toISOString();
  const common = {
    transactionId: record.id,
    walletId: record.walletId,
    partnerId: record.partnerId,
    intentKind: record.intentKind,
    type: record.walletType,
  };
  if (record.status === 'confirmed') {
    return [
      event(record, 'rest.transaction.confirmed', {
        ...common,
        hash: record.hash,
        blockNumber: record.blockNumber === null ? null : record.blockNumber.toString(),
        blockHash: record.blockHash,
        resolvedAt,
      }),
      event(record, 'send.confirmed', { ...identifying(record, isDevnet), confirmedAt: resolvedAt }),
    ];
  }
  const monitoring = record.monitoring;
  const reconciliation =
    monitoring?.chainOutcome || monitoring?.winningHash
      ? { chainOutcome: monitoring.chainOutcome ?? null, winningHash: monitoring.winningHash ?? null, winningStatus: monitoring.winningStatus ?? null }
      : {};
  return [
    event(record, 'rest.transaction.failed', {
      ...common,
      status: record.status,
      hash: record.hash,
      failureMessage: record.failureMessage,
      resolvedAt,
      ...(record.status === 'failed'
        ? { failureStage: record.failureStage, ...(record.failureCode ? { failureCode: record.failureCode } : {}) }
        : {}),
      ...reconciliation,
    }),
    event(record, 'send.failed', {
      ...identifying(record, isDevnet),
      ...(record.failureMessage ? { error: record.failureMessage } : {}),
      failedAt: resolvedAt,
    }),
  ];
}
