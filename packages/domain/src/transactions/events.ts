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

/** `send.broadcasted` of the record's transaction, or of a fee replacement when `record.hash` is the attempt's. */
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
  // The send.* events name the transaction that executed: with fee replacements, the included attempt.
  const included = record.monitoring?.winningHash && (record.status === 'confirmed' || record.status === 'reverted') ? record.monitoring.winningHash : record.hash;
  const sent = { ...identifying(record, isDevnet), txHash: included };
  if (record.status === 'confirmed') {
    return [
      event(record, 'rest.transaction.confirmed', {
        ...common,
        hash: record.hash,
        blockNumber: record.blockNumber === null ? null : record.blockNumber.toString(),
        blockHash: record.blockHash,
        resolvedAt,
      }),
      event(record, 'send.confirmed', { ...sent, confirmedAt: resolvedAt }),
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
      ...sent,
      ...(record.failureMessage ? { error: record.failureMessage } : {}),
      failedAt: resolvedAt,
    }),
  ];
}
