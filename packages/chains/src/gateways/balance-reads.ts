/**
 * The balances route's chain reads (packages/domain/src/balances/ports.ts), over the same JSON-RPC
 * client as the gateways, a constant number of round trips whatever the number of tokens:
 * - EVM: eth_blockNumber, then ONE batch of eth_getBalance and every eth_call at that block;
 * - Solana: ONE batch of getBalance and getTokenAccountsByOwner for the Token and Token-2022
 *   programs (base64 accounts), then ONE getMultipleAccounts for the mints' decimals.
 * Unavailability throws ChainUnavailableError as the gateways do; a reverting eth_call is a result.
 */
import { getBase58Decoder, getBase64Encoder } from '@solana/kit';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type EvmBalanceReads, type SolanaBalanceReads, type SolanaTokenAccount } from '@wallet/domain/balances/ports.ts';
import { ChainUnavailableError, type EvmCallResult, type Hex } from '@wallet/domain/transactions/gateways.ts';
import { JsonRpcClient, JsonRpcError, isUnavailableError } from './json-rpc.ts';
import { parseJsonWithU64 } from './solana-gateway.ts';

const hexToBig = (v: unknown, what: string): bigint => {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v)) throw new ChainUnavailableError(`unexpected ${what} in RPC answer: ${JSON.stringify(v)}`);
  return v === '0x' ? 0n : BigInt(v);
};

export function createEvmBalanceReads(opts: { chainId: number; rpcUrl: string; timeoutMs?: number }): EvmBalanceReads {
  const label = `evm:${opts.chainId}`;
  const rpc = new JsonRpcClient({ url: opts.rpcUrl, timeoutMs: opts.timeoutMs ?? 10_000, label });
  return {
    async read(owner, calls) {
      const blockNumber = hexToBig(await rpc.read('eth_blockNumber', []), 'block number');
      const at = `0x${blockNumber.toString(16)}`;
      const [balance, ...outcomes] = await rpc.batch([
        { method: 'eth_getBalance', params: [owner, at] },
        ...calls.map((c) => ({ method: 'eth_call', params: [{ to: c.to, data: c.data }, at] })),
      ]);
      const native = hexToBig(rpc.unwrap('eth_getBalance', balance!), 'balance');
      const results = outcomes.map((o): EvmCallResult => {
        if (o.ok) return { ok: true, data: (o.result as Hex | null) ?? '0x' };
        const e = o.error;
        if (isUnavailableError(e)) throw new ChainUnavailableError(`${label} RPC unavailable: eth_call failed (${e.code}: ${e.message})`);
        if (e.code === -32601 || e.code === -32700 || e.code === -32600 || e.code === -32602) throw new JsonRpcError(e.code, `${label} eth_call: ${e.message}`, e.data);
        return { ok: false, revertData: typeof e.data === 'string' && e.data.startsWith('0x') ? (e.data as Hex) : null, message: e.message };
      });
      return { blockNumber, native, results };
    },
  };
}

const b58 = getBase58Decoder();
const b64 = getBase64Encoder();
/** An SPL token account: mint [0, 32), owner [32, 64), amount u64 LE [64, 72); Token-2022 appends extensions after 165 bytes. */
const TOKEN_ACCOUNT_SIZE = 165;
/** A mint: decimals u8 at 44, isInitialized at 45 (the same in both programs). */
const MINT_DECIMALS_OFFSET = 44;

interface RpcAccount {
  data: [string, string] | string;
  owner: string;
}

const bytesOf = (a: RpcAccount): Uint8Array => {
  if (!Array.isArray(a.data) || a.data[1] !== 'base64') throw new ChainUnavailableError('the RPC did not answer base64 account data');
  return b64.encode(a.data[0]) as Uint8Array;
};

const slotOf = (answer: unknown, what: string): bigint => {
  const slot = (answer as { context?: { slot?: unknown } } | null)?.context?.slot;
  if (typeof slot === 'bigint') return slot;
  if (typeof slot === 'number' && Number.isInteger(slot)) return BigInt(slot);
  throw new ChainUnavailableError(`${what}: the RPC answered no context slot`);
};

export function createSolanaBalanceReads(opts: { network: string; rpcUrl: string; timeoutMs?: number }): SolanaBalanceReads {
  const label = `solana:${opts.network}`;
  const rpc = new JsonRpcClient({ url: opts.rpcUrl, timeoutMs: opts.timeoutMs ?? 10_000, label, parse: parseJsonWithU64 });
  const programs = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];
  return {
    async read(owner) {
      const config = { commitment: 'confirmed' };
      const [balance, ...lists] = await rpc.readBatch([
        { method: 'getBalance', params: [owner, config] },
        ...programs.map((programId) => ({ method: 'getTokenAccountsByOwner', params: [owner, { programId }, { ...config, encoding: 'base64' }] })),
      ]);
      const value = (balance as { value?: unknown }).value;
      if (typeof value !== 'bigint' && typeof value !== 'number') throw new ChainUnavailableError(`${label} getBalance answered no value`);
      const programSlots: Record<string, bigint> = {};
      const accounts: Omit<SolanaTokenAccount, 'decimals'>[] = [];
      programs.forEach((program, i) => {
        const list = lists[i] as { value?: { pubkey: string; account: RpcAccount }[] };
        const slot = slotOf(list, `${label} getTokenAccountsByOwner`);
        programSlots[program] = slot;
        for (const { account } of list.value ?? []) {
          const data = bytesOf(account);
          if (data.length < TOKEN_ACCOUNT_SIZE) continue;
          const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(64, true);
          accounts.push({ mint: b58.decode(data.subarray(0, 32)), program, amount, slot });
        }
      });
      const mints = [...new Set(accounts.map((a) => a.mint))];
      const decimals = new Map<string, number>();
      if (mints.length > 0) {
        const answer = await rpc.read<{ value: (RpcAccount | null)[] }>('getMultipleAccounts', [mints, { ...config, encoding: 'base64' }]);
        mints.forEach((mint, i) => {
          const account = answer.value[i];
          const data = account ? bytesOf(account) : null;
          if (data && data.length > MINT_DECIMALS_OFFSET + 1 && data[MINT_DECIMALS_OFFSET + 1] === 1) decimals.set(mint, data[MINT_DECIMALS_OFFSET]!);
        });
      }
      return {
        lamports: BigInt(value),
        slot: slotOf(balance, `${label} getBalance`),
        // An account whose mint is gone or uninitialized has no meaningful amount.
        tokenAccounts: accounts.flatMap((a) => (decimals.has(a.mint) ? [{ ...a, decimals: decimals.get(a.mint)! }] : [])),
        programSlots,
      };
    },
  };
}
