import { describe, expect, it } from 'vitest';
import { gasCostInEth, reviewHref, stageMeaning } from './sponsored-records.ts';

describe('sponsored record helpers', () => {
  it('shows the gas cost in ETH with every decimal, from wei', () => {
    expect(gasCostInEth('94135000000000')).toBe('0.000094135 ETH');
    expect(gasCostInEth('94135000000001')).toBe('0.000094135000000001 ETH');
    expect(gasCostInEth('1000000000000000000')).toBe('1 ETH');
    expect(gasCostInEth('0')).toBe('0 ETH');
    expect(gasCostInEth(null)).toBeNull();
    expect(gasCostInEth(undefined)).toBeNull();
  });

  it('explains each stage in one line, and an unknown one as still in progress', () => {
    expect(stageMeaning('included')).toBe("The operation's UserOperationEvent is on chain");
    expect(stageMeaning('requires_action')).toMatch(/review/);
    for (const stage of ['accepted', 'requires_action', 'signed', 'submission_unknown', 'submitted', 'included', 'delivery_unverified']) {
      expect(stageMeaning(stage)).not.toMatch(/does not know/);
      expect(stageMeaning(stage)).not.toContain('\n');
    }
    expect(stageMeaning('finalized')).toBe('A stage this console does not know yet: still in progress');
    expect(stageMeaning(null)).toBe('No stage recorded');
  });

  it('links the review to its case on the cases page, with the environment when known', () => {
    expect(reviewHref('c1', { projectId: 'p1', environment: 'production' })).toBe('/cases?project=p1&env=production&case=c1');
    expect(reviewHref('c1', { projectId: 'p1' })).toBe('/cases?project=p1&case=c1');
    expect(reviewHref('c1', { projectId: 'p1', environment: null })).toBe('/cases?project=p1&case=c1');
  });
});
