/**
 * The LiteSVM devnet's state file: one binary file written atomically (temp file + rename), so a
 * crash mid-write leaves the previous state. Layout: magic, u32 LE length of a JSON header (chain
 * bookkeeping, landed transactions, the devnet's keys), the header, then LiteSVM's own snapshot.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-file.ts';
import type { ChainState } from './chain.ts';

const MAGIC = Buffer.from('WLTSVM1\n');

export interface DevnetKeys {
  /** 32-byte Ed25519 private keys. */
  faucet: Uint8Array;
  mintAuthority: Uint8Array;
  mint: Uint8Array;
}

export interface DevnetSnapshot {
  chain: ChainState;
  keys: DevnetKeys;
}

// bigints and byte arrays survive JSON as tagged objects.
const replacer = (_key: string, value: unknown) =>
  typeof value === 'bigint' ? { $big: value.toString() } : value instanceof Uint8Array ? { $b64: Buffer.from(value).toString('base64') } : value;
const reviver = (_key: string, value: unknown) => {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as { $big?: string; $b64?: string };
    if (typeof v.$big === 'string') return BigInt(v.$big);
    if (typeof v.$b64 === 'string') return new Uint8Array(Buffer.from(v.$b64, 'base64'));
  }
  return value;
};

export function encodeSnapshot({ chain, keys }: DevnetSnapshot): Uint8Array[] {
  const { svm, ...rest } = chain;
  const header = Buffer.from(JSON.stringify({ chain: rest, keys }, replacer));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return [MAGIC, length, header, svm];
}

export function decodeSnapshot(bytes: Uint8Array): DevnetSnapshot {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < MAGIC.length + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a devnet state file');
  const length = buf.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4;
  if (buf.length < start + length) throw new Error('devnet state file is truncated');
  const header = JSON.parse(buf.subarray(start, start + length).toString('utf8'), reviver) as {
    chain: Omit<ChainState, 'svm'>;
    keys: DevnetKeys;
  };
  return { chain: { ...header.chain, svm: new Uint8Array(buf.subarray(start + length)) }, keys: header.keys };
}

export function saveSnapshot(path: string, snapshot: DevnetSnapshot): void {
  writeFileAtomic(path, encodeSnapshot(snapshot));
}

/**
 * The snapshot at `path`; none when the file does not exist. A file that cannot be decoded is moved
 * aside (`discarded` names where) so the devnet starts fresh rather than not at all.
 */
export function loadSnapshot(path: string): { snapshot?: DevnetSnapshot; discarded?: string } {
  if (!existsSync(path)) return {};
  try {
    return { snapshot: decodeSnapshot(readFileSync(path)) };
  } catch {
    const discarded = `${path}.corrupt-${Date.now()}`;
    renameSync(path, discarded);
    return { discarded };
  }
}
