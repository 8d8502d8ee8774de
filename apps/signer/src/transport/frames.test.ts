import { randomBytes } from 'node:crypto';
import { decodeVaultValue, encodeVaultValue } from '@wallet/domain';
import { describe, expect, it, vi } from 'vitest';
import { createFrameReader, decodePayload, encodeFrame, FRAME_HEADER_BYTES } from './frames.ts';

/** A frame around raw payload bytes, as a peer of any release may write it. */
function rawFrame(id: number, payload: string | Buffer): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUInt32BE(bytes.length, 0);
  header.writeUInt32BE(id, 4);
  return Buffer.concat([header, bytes]);
}

function collect(max: number) {
  const seen: Array<[string, number, string?]> = [];
  const read = createFrameReader(max, {
    frame: (id, payload) => seen.push(['frame', id, payload.toString('utf8')]),
    oversize: (id, length) => seen.push(['oversize', id, String(length)]),
  });
  return { seen, read };
}

const payloadOf = (frame: Buffer) => frame.subarray(FRAME_HEADER_BYTES);

describe('RPC frames', () => {
  const stream = Buffer.concat([rawFrame(1, '{"a":"é"}'), rawFrame(7, 'x'.repeat(40)), rawFrame(0xffff_ffff, '')]);
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
    const all = Buffer.concat(payloads.map((p, i) => rawFrame(i + 1, p)));
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
    expect(frame.readUInt32BE(0)).toBe(4); // "é" with its quotes
    expect(frame.readUInt32BE(4)).toBe(2);
    expect(frame.length).toBe(12);
  });
});

describe('RPC payloads: byte strings attached (wallet-signer/2) or inline base64 (wallet-signer/1)', () => {
  const messages = [randomBytes(50_000), new Uint8Array(0), Uint8Array.of(1, 2, 3)];
  const value = { method: 'vault.dkls.presignStep', requestId: 'r1', params: { messages, share: { iv: randomBytes(12), ciphertext: randomBytes(80), epoch: 2 }, note: 'é', n: null } };

  it('round-trips bytes anywhere in a value in both forms, each as a Uint8Array of its own', () => {
    for (const form of ['binary', 'json'] as const) {
      const frame = encodeFrame(9, value, form);
      const decoded = decodePayload(payloadOf(frame)) as typeof value;
      expect(decoded.method).toBe(value.method);
      expect(decoded.params.n).toBeNull();
      expect(decoded.params.note).toBe('é');
      expect(decoded.params.share.epoch).toBe(2);
      const all = [...decoded.params.messages, decoded.params.share.iv, decoded.params.share.ciphertext];
      const sent = [...messages, value.params.share.iv, value.params.share.ciphertext];
      for (const [i, bytes] of all.entries()) {
        expect(bytes).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(bytes).equals(Buffer.from(sent[i]!))).toBe(true);
        // Its own buffer: a structured clone to a thread copies no more than the value.
        expect(bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength).toBe(true);
      }
    }
  });

  it('attaches the bytes (one copy, no base64) in the binary form; inlines base64 in the JSON form; writes plain JSON when there are none', () => {
    const binary = payloadOf(encodeFrame(1, value, 'binary'));
    const json = payloadOf(encodeFrame(1, value, 'json'));
    expect(binary[0]).toBe(0);
    expect(binary.length).toBeLessThan(50_000 + 80 + 12 + 3 + 400);
    expect(json.toString('utf8')).toContain(`{"$bytes":"${Buffer.from(messages[2]!).toString('base64')}"}`);
    expect(json.length).toBeGreaterThan((50_000 * 4) / 3);
    const plain = payloadOf(encodeFrame(1, { status: 200, result: { ok: true } }, 'binary'));
    expect(plain.toString('utf8')).toBe('{"status":200,"result":{"ok":true}}');
  });

  it('leaves look-alikes as objects: a reference out of range, with another key, or not an integer; base64 that is not', () => {
    const text = JSON.stringify({ a: { $b: 5 }, b: { $b: 0, x: 1 }, c: { $b: 0.5 }, d: { $b: '0' }, e: { $bytes: 'not base64!' }, f: { $bytes: 'AQI=' } });
    const json = Buffer.from(text, 'utf8');
    const one = Buffer.alloc(4);
    one.writeUInt32BE(1);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(json.length, 1);
    const decoded = decodePayload(Buffer.concat([head, json, one, Buffer.of(7)])) as Record<string, unknown>;
    expect(decoded).toMatchObject({ a: { $b: 5 }, b: { $b: 0, x: 1 }, c: { $b: 0.5 }, d: { $b: '0' }, e: { $bytes: 'not base64!' } });
    expect(decoded.f).toEqual(Uint8Array.of(1, 2));
  });

  it('keeps a "__proto__" key an own property, never the prototype', () => {
    const payload = payloadOf(encodeFrame(1, JSON.parse('{"__proto__": {"polluted": 1}, "x": [1]}'), 'binary'));
    const withBytes = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), Buffer.from('{"__proto__":{"$b":0}}'), Buffer.from([0, 0, 0, 1, 9])]);
    withBytes.writeUInt32BE(withBytes.length - 10, 1);
    for (const p of [payload, withBytes]) {
      const decoded = decodePayload(p) as Record<string, unknown>;
      expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
      expect(Object.hasOwn(decoded, '__proto__')).toBe(true);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect((decodePayload(withBytes) as Record<string, unknown>)['__proto__']).toEqual(Uint8Array.of(9));
  });

  it('refuses a binary payload whose lengths run past its end, and a payload that is not JSON', () => {
    const good = payloadOf(encodeFrame(1, { m: Uint8Array.of(1, 2, 3) }, 'binary'));
    expect(decodePayload(good)).toEqual({ m: Uint8Array.of(1, 2, 3) });
    const jsonPastEnd = Buffer.from(good);
    jsonPastEnd.writeUInt32BE(good.length, 1);
    const attachmentPastEnd = Buffer.from(good);
    attachmentPastEnd.writeUInt32BE(4, good.length - 7);
    for (const bad of [good.subarray(0, 3), jsonPastEnd, attachmentPastEnd, good.subarray(0, good.length - 1), good.subarray(0, good.length - 5), Buffer.from('not json'), Buffer.alloc(0)]) {
      expect(() => decodePayload(bad)).toThrow();
    }
  });

  it('throws what JSON.stringify throws on a value it cannot write', () => {
    expect(() => encodeFrame(1, { n: 1n })).toThrow(TypeError);
  });
});

describe('the vault codec over the frames', () => {
  it("keeps a caller's own one-key objects that look like tags as they are, and the codec's tags as values", () => {
    const typedData = { message: { $b: 0 }, other: { $bytes: 'AQI=' }, when: { $date: '2026-01-01T00:00:00.000Z' }, big: { $bigint: '5' }, lit: { $literal: [['x', 1]] }, two: { $b: 0, y: 1 } };
    const value = { input: typedData, share: Uint8Array.of(9, 9), at: new Date('2026-02-03T04:05:06.000Z'), n: 7n };
    for (const form of ['binary', 'json'] as const) {
      const read = decodeVaultValue(decodePayload(encodeFrame(1, encodeVaultValue(value), form).subarray(FRAME_HEADER_BYTES)));
      expect(read).toEqual(value);
    }
  });
});
