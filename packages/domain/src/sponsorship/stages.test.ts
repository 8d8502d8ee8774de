import { describe, expect, it } from 'vitest';
import { decideFromEvidence, SPONSORED_STAGES, STATUS_OF_STAGE, type OperationEvidence } from './stages.ts';

const included = (changes: Partial<Extract<OperationEvidence, { kind: 'included' }>> = {}): OperationEvidence => ({
  kind: 'included',
  userOperationHash: '0xef',
  success: true,
  actualGasCost: '135000000000000',
  transactionHash: '0xab',
  blockNumber: 12n,
  blockHash: '0xcd',
  transferProven: true,
  final: true,
  ...changes,
});
const onChain = { userOperationHash: '0xef', actualGasCost: '135000000000000', transactionHash: '0xab', blockNumber: 12n, blockHash: '0xcd' };

describe('decideFromEvidence', () => {
  it('confirms a final, successful operation whose token transfer is proven', () => {
    expect(decideFromEvidence(4n, included())).toEqual({ kind: 'confirm', ...onChain });
  });

  it('reverts a final operation whose execution failed, with the gas the sponsor paid', () => {
    expect(decideFromEvidence(4n, included({ success: false, transferProven: false }))).toEqual({ kind: 'revert', ...onChain });
  });

  it('waits at included until the block is final, whatever the outcome', () => {
    expect(decideFromEvidence(4n, included({ final: false }))).toEqual({ kind: 'wait', stage: 'included' });
    expect(decideFromEvidence(4n, included({ final: false, success: false }))).toEqual({ kind: 'wait', stage: 'included' });
  });

  it('never confirms a success without the delivery proven: delivery_unverified', () => {
    expect(decideFromEvidence(4n, included({ transferProven: false }))).toEqual({ kind: 'wait', stage: 'delivery_unverified' });
    expect(decideFromEvidence(4n, included({ transferProven: false, final: false }))).toEqual({ kind: 'wait', stage: 'delivery_unverified' });
  });

  it('waits while the submission is in the node, resubmits the stored bytes once it is gone and the nonce is open', () => {
    expect(decideFromEvidence(4n, { kind: 'absent', entryPointNonce: 4n, submissionKnown: true })).toEqual({ kind: 'wait', stage: 'submitted' });
    expect(decideFromEvidence(4n, { kind: 'absent', entryPointNonce: 4n, submissionKnown: false })).toEqual({ kind: 'resubmit' });
  });

  it('fails with NONCE_CONSUMED when the nonce moved on without this operation', () => {
    expect(decideFromEvidence(4n, { kind: 'absent', entryPointNonce: 5n, submissionKnown: false })).toMatchObject({ kind: 'fail', code: 'NONCE_CONSUMED' });
    expect(decideFromEvidence(4n, { kind: 'absent', entryPointNonce: 5n, submissionKnown: true })).toMatchObject({ kind: 'fail', code: 'NONCE_CONSUMED' });
  });

  it('shows the spec statuses: included is submitted, delivery_unverified pending, unknown submissions nonterminal', () => {
    expect(STATUS_OF_STAGE.included).toBe('submitted');
    expect(STATUS_OF_STAGE.delivery_unverified).toBe('pending');
    expect(STATUS_OF_STAGE.submission_unknown).toBe('submitted');
    expect(STATUS_OF_STAGE.requires_action).toBe('pending');
    for (const stage of SPONSORED_STAGES) expect(['pending', 'submitted']).toContain(STATUS_OF_STAGE[stage]);
  });
});
