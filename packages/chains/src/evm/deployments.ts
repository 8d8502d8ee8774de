/**
 * Contracts deployed on a local EVM devnet whose state survives restarts: their addresses are kept
 * in a JSON file next to the chain's state, tied to the chain's genesis hash, so a restart reuses
 * them and a chain that started fresh gets new ones.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Address, Hex } from 'viem';
import { writeFileAtomic } from '../atomic-file.ts';

interface DeploymentsFile {
  genesisHash: string;
  contracts: Record<string, Address>;
}

/** One JSON-RPC call to a local devnet (deploy-time plumbing; the service's reads go through the gateways). */
export async function rpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method} failed: ${body.error.message}`);
  return body.result as T;
}

/** Whether `address` has code on the chain now. */
export async function hasCode(rpcUrl: string, address: Address): Promise<boolean> {
  return (await rpc<Hex>(rpcUrl, 'eth_getCode', [address, 'latest'])) !== '0x';
}

/** A recorded JSON file, or undefined when it is missing or unreadable (then everything is deployed anew). */
export function readRecord<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * The chain's identity: the hash of its genesis block. anvil stamps its genesis with the start time,
 * so a fresh chain has a new one. A chain reloaded from its state file can answer block 0 with a
 * new timestamp (and hash) while every later block is the one it had (anvil 1.7.1, seen on the
 * third or fourth restart), so once block 1 exists the genesis hash is its `parentHash`: what the
 * chain was built on, which the reload does not change.
 */
export async function evmGenesisHash(rpcUrl: string): Promise<Hex> {
  const first = await rpc<{ parentHash: Hex } | null>(rpcUrl, 'eth_getBlockByNumber', ['0x1', false]);
  if (first) return first.parentHash;
  return (await rpc<{ hash: Hex }>(rpcUrl, 'eth_getBlockByNumber', ['0x0', false])).hash;
}

/**
 * The address of contract `name` on the chain at `rpcUrl`: the recorded one when it belongs to this
 * chain (same genesis hash) and has code, else the one `deploy` returns, then recorded.
 */
export async function ensureDeployed(
  rpcUrl: string,
  file: string,
  name: string,
  deploy: () => Promise<Address>,
): Promise<{ address: Address; reused: boolean }> {
  const genesisHash = await evmGenesisHash(rpcUrl);
  const recorded = readRecord<DeploymentsFile>(file);
  const known = recorded?.genesisHash === genesisHash ? recorded.contracts[name] : undefined;
  if (known && (await hasCode(rpcUrl, known))) return { address: known, reused: true };
  const address = await deploy();
  // Re-read: another contract may have been recorded meanwhile by a caller in this process.
  const current = readRecord<DeploymentsFile>(file);
  const contracts = current?.genesisHash === genesisHash ? { ...current.contracts, [name]: address } : { [name]: address };
  writeFileAtomic(file, `${JSON.stringify({ genesisHash, contracts } satisfies DeploymentsFile, null, 2)}\n`);
  return { address, reused: false };
}
