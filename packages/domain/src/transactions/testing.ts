import { randomUUID } from 'node:crypto';
import type { NewTransactionRecord } from '../ports.ts';

/**
 * Tests only: a complete new transaction record — an EVM transfer on the local chain id, submitted,
 * due for a check now, in fresh random project and wallet — with `overrides` for what a test is about.
 */
export function transactionRecordFixture(overrides: Partial<NewTransactionRecord> = {}): NewTransactionRecord {
  return {
    id: randomUUID(),
    projectId: randomUUID(),
    partnerId: randomUUID(),
    walletId: randomUUID(),
    walletType: 'EVM',
    intentKind: 'transfer',
    status: 'submitted',
    chainId: '84532',
    network: null,
    fromAddress: '0x0000000000000000000000000000000000000001',
    to: '0x0000000000000000000000000000000000000002',
    value: '1',
    tokenAddress: null,
    nonce: 0,
    hash: `0x${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}`,
    recentBlockhash: null,
    lastValidBlockHeight: null,
    nonceAccount: null,
    failureStage: null,
    failureCode: null,
    failureMessage: null,
    monitoring: null,
    cancellationOf: null,
    requestId: null,
    apiKeyId: null,
    submittedAt: new Date(),
    nextCheckAt: new Date(0),
    ...overrides,
  };
}
