/**
 * Byte encoding: every message and the key share are flat byte strings with fixed-size fields and
 * 32-bit big-endian lengths where a size varies. Decoding is strict: exact lengths, no trailing bytes,
 * scalars < n and points validated by the caller's field reader.
 * @module
 */
import { check } from './errors.ts';
import { assertPeerPoint, decodeScalar, POINT_BYTES, SCALAR_BYTES } from './group.ts';
import { toBytes, type Scalar } from './scalar.ts';

export class Writer {
  private readonly parts: Uint8Array[] = [];
  bytes(b: Uint8Array): this {
    this.parts.push(b);
    return this;
  }
  u8(n: number): this {
    this.parts.push(Uint8Array.of(n));
    return this;
  }
  u32(n: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    this.parts.push(b);
    return this;
  }
  scalar(x: Scalar): this {
    return this.bytes(toBytes(x));
  }
  /** A length-prefixed byte string. */
  varBytes(b: Uint8Array): this {
    return this.u32(b.length).bytes(b);
  }
  finish(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

export class Reader {
  private offset = 0;
  constructor(private readonly buf: Uint8Array) {}
  bytes(n: number): Uint8Array {
    check(this.offset + n <= this.buf.length, 'message too short');
    const out = this.buf.slice(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  u8(): number {
    return this.bytes(1)[0]!;
  }
  u32(): number {
    return Buffer.from(this.bytes(4)).readUInt32BE(0);
  }
  /** A peer's scalar, strictly decoded (32 bytes, < n), constant time. */
  scalar(): Scalar {
    return decodeScalar(this.bytes(SCALAR_BYTES)); // (a view of the message when it is a Buffer: not wiped here)
  }
  point(): Uint8Array {
    return assertPeerPoint(this.bytes(POINT_BYTES));
  }
  varBytes(max: number): Uint8Array {
    const n = this.u32();
    check(n <= max, 'length too large');
    return this.bytes(n);
  }
  end(): void {
    check(this.offset === this.buf.length, 'trailing bytes');
  }
}
