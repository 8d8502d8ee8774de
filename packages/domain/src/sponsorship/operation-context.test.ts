import { describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../ports.ts';
import { operationCaller, operationHashes, resolvedAttempts, type SubmissionAttempt } from './operation-context.ts';
import { relayerAllocatorId } from './submit-relayer.ts';

const record = {
  id: '8cb201b0-d402-4bc0-a957-fcfa2e501cba',
  partnerId: 'p',
  projectId: 'q',
  apiKeyId: null,
  requestId: 'req-1',
  monitoring: { sponsored: { environment: 'production', initiatorUserId: 'u-1' } },
} as unknown as TransactionRecord;

describe('operationCaller', () => {
  it("acts for the request's project and environment, with one stable approval key per step", () => {
    const operation = operationCaller(record, 'operation');
    expect(operation).toMatchObject({ projectId: 'q', environment: 'production', apiKeyId: '', requestId: 'req-1', initiatorUserId: 'u-1' });
    expect(operationCaller(record, 'operation')).toEqual(operation);
    const authorization = operationCaller(record, 'authorization');
    expect(authorization.idempotencyKey).not.toBe(operation.idempotencyKey);
    expect(authorization.requestHash).not.toBe(operation.requestHash);
    expect(operation.requestHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a record without its worker context', () => {
    expect(() => operationCaller({ ...record, monitoring: null }, 'operation')).toThrow(/no worker context/);
  });
});

describe('relayerAllocatorId', () => {
  it('is a UUID per chain and relayer address, whatever its case', () => {
    const a = relayerAllocatorId(84532, '0xAbCdEf0000000000000000000000000000000001');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(relayerAllocatorId(84532, '0xabcdef0000000000000000000000000000000001')).toBe(a);
    expect(relayerAllocatorId(8453, '0xabcdef0000000000000000000000000000000001')).not.toBe(a);
  });
});

describe('resolvedAttempts', () => {
  const at = '2026-11-27T21:00:00.000Z';
  it('marks the relayer transaction that included the operation, the earlier operation lost', () => {
    const attempts: SubmissionAttempt[] = [
      { hash: '0xaa', userOperationHash: '0x01', sentAt: at, outcome: 'pending' },
      { hash: '0xbb', userOperationHash: '0x02', sentAt: at, outcome: 'pending' },
    ];
    expect(resolvedAttempts(attempts, '0xBB', '0x02').map((a) => [a.hash, a.outcome])).toEqual([
      ['0xaa', 'lost'],
      ['0xbb', 'included'],
    ]);
  });

  it("gives a bundler's hand-over of the winning operation the bundle transaction, even when a replacement followed it", () => {
    const attempts: SubmissionAttempt[] = [
      { hash: null, userOperationHash: '0x01', sentAt: at, outcome: 'pending' },
      { hash: null, userOperationHash: '0x02', sentAt: at, outcome: 'refused' },
    ];
    expect(resolvedAttempts(attempts, '0xcc', '0x01').map((a) => [a.hash, a.outcome])).toEqual([
      ['0xcc', 'included'],
      [null, 'refused'],
    ]);
  });
});

describe('operationHashes', () => {
  it("lists every operation the record signed once, the stored one included", () => {
    const signed = {
      ...record,
      userOperationHash: '0x02',
      monitoring: { sponsored: { environment: 'production', initiatorUserId: null, attempts: [{ hash: '0xaa', userOperationHash: '0x01' }, { hash: '0xab', userOperationHash: '0x01' }] } },
    } as unknown as TransactionRecord;
    expect(operationHashes(signed)).toEqual(['0x01', '0x02']);
  });
});
