import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createFrameReader, encodeFrame } from './frames.ts';

function collect(max: number) {
  const seen: Array<[string, number, string?]> = [];
  const read = createFrameReader(max, {
    frame: (id, payload) => seen.push(['frame', id, payload.toString('utf8')]),
    oversize: (id, length) => seen.push(['oversize', id, String(length)]),
  });
  return { seen, read };
}

describe('RPC frames', () => {
  const stream = Buffer.concat([encodeFrame(1, '{"a":"é"}'), encodeFrame(7, 'x'.repeat(40)), encodeFrame(0xffff_ffff, '')]);
  const expected = [
    ['frame', 1, '{"a":"é"}'],
    ['oversize', 7, '40'],
    ['frame', 0xffff_ffff, ''],
  ];

  it('reads frames whole, fed at once or one byte at a time, and skips an oversize one without losing the next', () => {
    const whole = collect(16);
    whole.read(stream);
    expect(whole.seen).toEqual(expected);
    const bytes = collect(16);
    for (const byte of stream) bytes.read(Buffer.from([byte]));
    expect(bytes.seen).toEqual(expected);
  });

  it('reads large frames cut at random points, joining the pieces of a frame once, not at every read', () => {
    const payloads = [0, 1, 7, 100_000, 53_000, 3, 25_000].map((n) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n));
    const all = Buffer.concat(payloads.map((p, i) => encodeFrame(i + 1, p)));
    const { seen, read } = collect(1 << 20);
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      for (let at = 0; at < all.length; ) {
        const n = 1 + Math.floor(Math.random() * 16_384);
        read(all.subarray(at, at + n));
        at += n;
      }
      // One join per frame that spanned reads at most (a 100 KB frame comes in about seven pieces).
      expect(concat.mock.calls.length).toBeLessThanOrEqual(payloads.length);
    } finally {
      concat.mockRestore();
    }
    expect(seen).toEqual(payloads.map((p, i) => ['frame', i + 1, p]));
  });

  it('counts the length in UTF-8 bytes, not characters', () => {
    const frame = encodeFrame(2, 'é');
    expect(frame.readUInt32BE(0)).toBe(2);
    expect(frame.length).toBe(10);
  });
});
