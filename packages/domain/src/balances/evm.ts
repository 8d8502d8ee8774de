/**
 * EVM balances, the pure half: the calls one read needs and their decoding. One snapshot block for
 * everything: the native balance, `balanceOf` of the chain's USDC, and `balanceOf`, `decimals` and
 * `symbol` of every other token the wallet's records moved.
 */
import { decodeFunctionResult, encodeFunctionData, getAddress, hexToString, type Abi } from 'viem';
import { formatUnits } from '../chains/amounts.ts';
import type { ChainInfo } from '../chains/service.ts';
import { ApiError } from '../errors.ts';
import type { EvmCallResult, Hex } from '../transactions/gateways.ts';
import type { EvmBalanceSnapshot } from './ports.ts';
import type { EvmBalance } from './schemas.ts';

const ERC20_READ_ABI = [
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ type: 'uint256' }] },
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] },
  { type: 'function', name: 'symbol', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
] as const;
/** Some early tokens (MKR) answer symbol() as bytes32. */
const BYTES32_SYMBOL_ABI = [{ type: 'function', name: 'symbol', stateMutability: 'view', inputs: [], outputs: [{ type: 'bytes32' }] }] as const;

/** 502: the chain's configured USDC did not answer balanceOf; the registry or the chain is wrong. */
export const BALANCE_READ_FAILED = 'BALANCE_READ_FAILED';

/** A token to read: the chain's USDC (symbol and decimals known) or one the records moved. */
export interface EvmToken {
  address: Hex;
  known: { symbol: string; decimals: number } | null;
}

/** USDC first, then the moved tokens (each once, case-insensitively, in address order). */
export function tokensToRead(chain: ChainInfo, moved: string[]): EvmToken[] {
  const usdc = chain.usdc ? [{ address: chain.usdc.address as Hex, known: { symbol: 'USDC', decimals: chain.usdc.decimals } }] : [];
  const seen = new Set(usdc.map((t) => t.address.toLowerCase()));
  const others = [...new Set(moved.filter((a) => /^0x[0-9a-fA-F]{40}$/.test(a)).map((a) => a.toLowerCase()))]
    .filter((a) => !seen.has(a))
    .sort()
    .map((a) => ({ address: getAddress(a), known: null }));
  return [...usdc, ...others];
}

/** balanceOf for each token, plus decimals and symbol for the tokens the registry does not describe. */
export function balanceCalls(owner: Hex, tokens: EvmToken[]): { to: Hex; data: Hex }[] {
  const balanceOf = encodeFunctionData({ abi: ERC20_READ_ABI, functionName: 'balanceOf', args: [owner] });
  const decimals = encodeFunctionData({ abi: ERC20_READ_ABI, functionName: 'decimals' });
  const symbol = encodeFunctionData({ abi: ERC20_READ_ABI, functionName: 'symbol' });
  return tokens.flatMap((t) => [{ to: t.address, data: balanceOf }, ...(t.known ? [] : [{ to: t.address, data: decimals }, { to: t.address, data: symbol }])]);
}

function decode<T>(abi: Abi, functionName: string, result: EvmCallResult | undefined): T | null {
  if (!result?.ok || result.data === '0x') return null;
  try {
    return decodeFunctionResult({ abi, functionName, data: result.data }) as T;
  } catch {
    return null;
  }
}

function decodeSymbol(result: EvmCallResult | undefined): string | null {
  const text = decode<string>(ERC20_READ_ABI, 'symbol', result);
  if (text !== null) return text;
  const bytes = decode<Hex>(BYTES32_SYMBOL_ABI, 'symbol', result);
  return bytes === null ? null : hexToString(bytes, { size: 32 }).replace(/\0+$/, '');
}

/** Printable, short: a symbol is shown to people and put in logs. */
const cleanSymbol = (symbol: string | null, fallback: string) => {
  const printable = symbol?.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 32);
  return printable ? printable : fallback;
};

/**
 * The answer's entries: native first, then each token. A token the records moved whose contract
 * does not answer balanceOf and decimals as an ERC-20 at that block is left out; the configured
 * USDC not answering is a 502 (the configuration is wrong).
 */
export function decodeEvmBalances(chain: ChainInfo, tokens: EvmToken[], snapshot: EvmBalanceSnapshot): EvmBalance[] {
  const blockNumber = Number(snapshot.blockNumber);
  const { symbol, decimals } = chain.nativeCurrency;
  const entries: EvmBalance[] = [
    { asset: 'native', tokenAddress: null, symbol, decimals, rawBalance: snapshot.native.toString(), balance: formatUnits(snapshot.native, decimals), blockNumber },
  ];
  let next = 0;
  for (const token of tokens) {
    const balance = decode<bigint>(ERC20_READ_ABI, 'balanceOf', snapshot.results[next++]);
    const tokenDecimals = token.known ? token.known.decimals : decode<number>(ERC20_READ_ABI, 'decimals', snapshot.results[next++]);
    const tokenSymbol = token.known ? token.known.symbol : cleanSymbol(decodeSymbol(snapshot.results[next++]), token.address);
    if (balance === null || tokenDecimals === null) {
      if (token.known) throw new ApiError(502, BALANCE_READ_FAILED, `Reading balances failed: USDC ${token.address}.balanceOf(wallet) at block ${blockNumber} answered no balance (is the chain's USDC address right?)`);
      continue;
    }
    entries.push({
      asset: 'erc20',
      tokenAddress: token.address,
      symbol: tokenSymbol,
      decimals: tokenDecimals,
      rawBalance: balance.toString(),
      balance: formatUnits(balance, tokenDecimals),
      blockNumber,
    });
  }
  return entries;
}
