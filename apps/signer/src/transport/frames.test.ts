import { describe, expect, it } from 'vitest';
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

  it('counts the length in UTF-8 bytes, not characters', () => {
    const frame = encodeFrame(2, 'é');
    expect(frame.readUInt32BE(0)).toBe(2);
    expect(frame.length).toBe(10);
  });
});
