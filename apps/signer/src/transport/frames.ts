/**
 * The signer's RPC framing, inside the mutual-TLS connection (ALPN `wallet-signer/1`):
 *
 *   frame = length (u32, big-endian: bytes of payload) · id (u32, big-endian) · payload (UTF-8 JSON)
 *
 * The client numbers its calls; the signer answers each with a frame of the same id, in whatever
 * order its handlers finish. The id sits outside the JSON so that a frame too large to read can
 * still be answered (413) while its bytes are skipped.
 *
 *   request  {"method": "vault.sign", "requestId": "…", "params": …}
 *   answer   {"status": 200, "result": …} | {"status": 4xx/5xx, "error": {"code", "message", "details"?}}
 *
 * Imports nothing that touches keys: the API's client entry loads it.
 */
export const FRAME_HEADER_BYTES = 8;
/** The largest id; the client wraps around after it (ids only need to be unique among calls in flight). */
export const MAX_FRAME_ID = 0xffff_ffff;

export function encodeFrame(id: number, payload: string): Buffer {
  const length = Buffer.byteLength(payload, 'utf8');
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.writeUInt32BE(length, 0);
  frame.writeUInt32BE(id, 4);
  frame.write(payload, FRAME_HEADER_BYTES, 'utf8');
  return frame;
}

/**
 * Frames written in one event-loop turn leave as one buffer in one socket write (one TLS record
 * when they fit), after the turn's other callbacks ran: a log group commit or a burst of calls
 * costs one write, not one per frame.
 */
export function createFrameWriter(socket: { write(chunk: Buffer): boolean; destroyed: boolean; writable: boolean }): (id: number, payload: string) => void {
  let queued: Buffer[] = [];
  const flush = () => {
    const frames = queued;
    queued = [];
    if (socket.destroyed || !socket.writable) return;
    socket.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
  };
  return (id, payload) => {
    if (queued.length === 0) process.nextTick(flush);
    queued.push(encodeFrame(id, payload));
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
