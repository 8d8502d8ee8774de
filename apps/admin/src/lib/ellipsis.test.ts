import { describe, expect, it } from 'vitest';
import { splitForEllipsis } from './ellipsis.ts';

describe('splitForEllipsis', () => {
  it('keeps the last characters of a long value apart from the head the ellipsis shortens', () => {
    const hash = '0x9f2c6a1be0d4c3b8a7f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918';
    expect(splitForEllipsis(hash, 6)).toEqual({ head: hash.slice(0, -6), tail: '3a2918' });
    const { head, tail } = splitForEllipsis(hash, 6);
    expect(head + tail).toBe(hash);
  });

  it('does not split a value no longer than twice the tail, or with no tail', () => {
    expect(splitForEllipsis('/v1/wallets', 6)).toEqual({ head: '/v1/wallets', tail: '' });
    expect(splitForEllipsis('abcdefghijkl', 6)).toEqual({ head: 'abcdefghijkl', tail: '' });
    expect(splitForEllipsis('abcdefghijklm', 6)).toEqual({ head: 'abcdefg', tail: 'hijklm' });
    expect(splitForEllipsis('abcdefghijklm', 0)).toEqual({ head: 'abcdefghijklm', tail: '' });
  });
});
