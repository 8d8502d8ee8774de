/**
 * The parts of a Solana wire transaction (legacy or v0) that request facts read: static account
 * keys as bytes and the compiled instructions. kit's message decoder turns every account key into
 * base58 (~10 us a key, most of a decode), which is too slow to run on every signature; here only
 * the keys a leg needs are converted. The codecs are kit's (compact-u16); the signer decodes the
 * same bytes with kit's decoders and refuses what they refuse, and the tests check both agree.
 *
 * Wire layout: compact-u16 signature count, 64-byte signatures, then the message: an optional
 * version byte (0x80 | version), a 3-byte header, compact-u16 key count, 32-byte keys, a 32-byte
 * blockhash, compact-u16 instruction count, each `u8 program index, compact-u16 n, n account
 * indices, compact-u16 m, m data bytes`, then (v0) compact-u16 table count, each `32-byte table
 * key, compact-u16 n, n writable indices, compact-u16 m, m read-only indices`, and nothing more.
 */
import { getShortU16Decoder } from '@solana/kit';

export interface WireInstruction {
  programIndex: number;
  /** Indices into the static keys, then into the lookup-table accounts (not resolvable offline). */
  accounts: Uint8Array;
  data: Uint8Array;
}

export interface WireMessage {
  /** The static account keys, 32 bytes each. */
  keys: Uint8Array;
  keyCount: number;
  instructions: WireInstruction[];
}

const shortU16 = getShortU16Decoder();

/** The message of a legacy or v0 wire transaction, or null when it is neither. */
export function parseSolanaWire(wire: Uint8Array): WireMessage | null {
  try {
    let offset = 0;
    const next = (): number => {
      const [value, end] = shortU16.read(wire, offset);
      offset = end;
      return value;
    };
    const signatures = next();
    offset += 64 * signatures;
    if (offset >= wire.length) return null;
    const versioned = (wire[offset]! & 0x80) !== 0;
    if (versioned) {
      if ((wire[offset]! & 0x7f) !== 0) return null;
      offset += 1;
    }
    offset += 3;
    const keyCount = next();
    const keys = wire.subarray(offset, offset + 32 * keyCount);
    offset += 32 * keyCount + 32;
    if (offset > wire.length) return null;
    const instructions: WireInstruction[] = new Array(next());
    for (let i = 0; i < instructions.length; i++) {
      const programIndex = wire[offset++];
      const accountCount = next();
      const accounts = wire.subarray(offset, (offset += accountCount));
      const dataLength = next();
      const data = wire.subarray(offset, (offset += dataLength));
      if (programIndex === undefined || offset > wire.length) return null;
      instructions[i] = { programIndex, accounts, data };
    }
    if (versioned) {
      for (let tables = next(); tables > 0; tables--) {
        offset += 32;
        const writable = next();
        offset += writable;
        const readonly = next();
        offset += readonly;
      }
    }
    // Like the signer, nothing may follow the message.
    return offset === wire.length ? { keys, keyCount, instructions } : null;
  } catch {
    return null;
  }
}
