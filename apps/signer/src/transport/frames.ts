/**
 * The signer's RPC framing, inside the mutual-TLS connection:
 *
 *   frame   = length (u32, big-endian: bytes of payload) · id (u32, big-endian) · payload
 *   payload = JSON (UTF-8)                                              every version
 *           | 0x00 · json length (u32) · JSON · (length (u32) · bytes)*     ALPN wallet-signer/2,
 *                                                                        when it carries bytes
 *
 * The client numbers its calls; the signer answers each with a frame of the same id, in whatever
 * order its handlers finish. The id sits outside the JSON so that a frame too large to read can
 * still be answered (413) while its bytes are skipped.
 *
 *   request  {"method": "vault.sign", "requestId": "…", "params": …}
 *   answer   {"status": 200, "result": …} | {"status": 4xx/5xx, "error": {"code", "message", "details"?}}
 *
 * Byte strings (`Uint8Array` anywhere in a value) travel as `{"$b": i}` referring to the i-th
 * attachment after the JSON (wallet-signer/2), or inline as `{"$bytes": base64}` (wallet-signer/1,
 * for a peer of an older release): a threshold round's ~50 KB of protocol messages then costs one
 * copy into the frame, not a base64 string, a JSON string and a UTF-8 encoding of both. The reader
 * takes either form in any frame and answers byte strings as `Uint8Array`s of their own.
 *
 * Imports nothing that touches keys: the API's client entry loads it.
 */
export const FRAME_HEADER_BYTES = 8;
/** The largest id; the client wraps around after it (ids only need to be unique among calls in flight). */
export const MAX_FRAME_ID = 0xffff_ffff;

/** How byte strings are written: attachments (wallet-signer/2) or inline base64 (wallet-signer/1). */
export type PayloadForm = 'binary' | 'json';

const BINARY_MARK = 0x00;

function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** A frame carrying `value` (a request or an answer); throws what JSON.stringify throws (a cycle, a bigint). */
export function encodeFrame(id: number, value: unknown, form: PayloadForm = 'binary'): Buffer {
  const attachments: Uint8Array[] = [];
  const json = JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
    // `this[key]`, not `v`: a Buffer's toJSON has already turned `v` into {type, data}.
    const raw = this[key];
    if (!(raw instanceof Uint8Array)) return v;
    if (form === 'json') return { $bytes: base64Of(raw) };
    attachments.push(raw);
    return { $b: attachments.length - 1 };
  });
  const jsonBytes = Buffer.byteLength(json, 'utf8');
  if (attachments.length === 0) {
    const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + jsonBytes);
    frame.writeUInt32BE(jsonBytes, 0);
    frame.writeUInt32BE(id, 4);
    frame.write(json, FRAME_HEADER_BYTES, 'utf8');
    return frame;
  }
  let length = 5 + jsonBytes;
  for (const a of attachments) length += 4 + a.byteLength;
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.writeUInt32BE(length, 0);
  frame.writeUInt32BE(id, 4);
  frame[FRAME_HEADER_BYTES] = BINARY_MARK;
  frame.writeUInt32BE(jsonBytes, FRAME_HEADER_BYTES + 1);
  let at = FRAME_HEADER_BYTES + 5 + frame.write(json, FRAME_HEADER_BYTES + 5, 'utf8');
  for (const a of attachments) {
    frame.writeUInt32BE(a.byteLength, at);
    frame.set(a, at + 4);
    at += 4 + a.byteLength;
  }
  return frame;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Replaces `{"$b": i}` (an attachment) and `{"$bytes": base64}` by their bytes, in the tree JSON.parse just made. */
function resolveBytes(node: unknown, payload: Buffer, attachments: Array<[number, number]>): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) node[i] = resolveBytes(node[i], payload, attachments);
    return node;
  }
  const record = node as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1) {
    const inner = record[keys[0]!];
    if (keys[0] === '$b' && typeof inner === 'number' && Number.isInteger(inner) && inner >= 0 && inner < attachments.length) {
      const [start, end] = attachments[inner]!;
      const bytes = new Uint8Array(end - start);
      bytes.set(payload.subarray(start, end));
      return bytes;
    }
    if (keys[0] === '$bytes' && typeof inner === 'string' && BASE64.test(inner)) return new Uint8Array(Buffer.from(inner, 'base64'));
  }
  for (const key of keys) {
    const v = record[key];
    const resolved = resolveBytes(v, payload, attachments);
    if (resolved === v) continue;
    // JSON.parse makes `__proto__` an own property; assigning it would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(record, key, { value: resolved, enumerable: true, writable: true, configurable: true });
    else record[key] = resolved;
  }
  return record;
}

/** The value a frame's payload carries (either form); throws on a payload that is neither. */
export function decodePayload(payload: Buffer): unknown {
  if (payload.length === 0 || payload[0] !== BINARY_MARK) {
    const text = payload.toString('utf8');
    const value: unknown = JSON.parse(text);
    return text.includes('"$bytes"') ? resolveBytes(value, payload, []) : value;
  }
  if (payload.length < 5) throw new Error('a binary payload shorter than its header');
  const jsonEnd = 5 + payload.readUInt32BE(1);
  if (jsonEnd > payload.length) throw new Error('a binary payload whose JSON runs past its end');
  const attachments: Array<[number, number]> = [];
  for (let at = jsonEnd; at < payload.length; ) {
    if (at + 4 > payload.length) throw new Error('a binary payload with a torn attachment length');
    const end = at + 4 + payload.readUInt32BE(at);
    if (end > payload.length) throw new Error('a binary payload whose attachment runs past its end');
    attachments.push([at + 4, end]);
    at = end;
  }
  const text = payload.toString('utf8', 5, jsonEnd);
  return resolveBytes(JSON.parse(text), payload, attachments);
}

/**
 * Frames written in one event-loop turn leave as one buffer in one socket write (one TLS record
 * when they fit), after the turn's other callbacks ran: a log group commit or a burst of calls
 * costs one write, not one per frame.
 */
export function createFrameWriter(socket: { write(chunk: Buffer): boolean; destroyed: boolean; writable: boolean }): (frame: Buffer) => void {
  let queued: Buffer[] = [];
  const flush = () => {
    const frames = queued;
    queued = [];
    if (socket.destroyed || !socket.writable) return;
    socket.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
  };
  return (frame) => {
    if (queued.length === 0) process.nextTick(flush);
    queued.push(frame);
  };
}

export interface FrameSink {
  frame(id: number, payload: Buffer): void;
  /** A frame whose payload is above the limit: its bytes are skipped, never buffered. */
  oversize(id: number, length: number): void;
}

/**
 * Cuts a byte stream into frames; feed it every chunk the socket reads. The chunks of a frame that
 * spans many reads (a threshold round's ~50 KB arrives in 16 KiB TLS records) are kept as a list and
 * joined once, when the frame is complete: joining at every read would copy the frame once per read.
 */
export function createFrameReader(maxPayloadBytes: number, sink: FrameSink): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let partBytes = 0;
  /** Bytes needed before the head of `parts` can be read: a header, or a header and its payload. */
  let needed = FRAME_HEADER_BYTES;
  let skipping = 0;
  return (chunk: Buffer) => {
    if (skipping > 0) {
      const n = Math.min(skipping, chunk.length);
      skipping -= n;
      chunk = chunk.subarray(n);
      if (chunk.length === 0) return;
    }
    parts.push(chunk);
    partBytes += chunk.length;
    if (partBytes < needed) return;
    let buffer = parts.length === 1 ? parts[0]! : Buffer.concat(parts, partBytes);
    parts = [];
    partBytes = 0;
    needed = FRAME_HEADER_BYTES;
    while (buffer.length >= FRAME_HEADER_BYTES) {
      const length = buffer.readUInt32BE(0);
      const id = buffer.readUInt32BE(4);
      if (length > maxPayloadBytes) {
        sink.oversize(id, length);
        const available = Math.min(length, buffer.length - FRAME_HEADER_BYTES);
        skipping = length - available;
        buffer = buffer.subarray(FRAME_HEADER_BYTES + available);
        continue;
      }
      if (buffer.length < FRAME_HEADER_BYTES + length) {
        needed = FRAME_HEADER_BYTES + length;
        break;
      }
      sink.frame(id, buffer.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length));
      buffer = buffer.subarray(FRAME_HEADER_BYTES + length);
    }
    // Keep only the unread tail, copied, so the socket's chunk is not held by a small remainder.
    if (buffer.length > 0) {
      parts = [Buffer.from(buffer)];
      partBytes = buffer.length;
    }
  };
}
