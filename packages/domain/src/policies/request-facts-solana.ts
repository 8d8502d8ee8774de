/**
 * Solana request facts: the wire transaction is read by solana-wire.ts (kit's codecs, account keys
 * converted to base58 only where a leg needs them) and the top-level instructions with the System
 * and Token programs' own codecs (spec notes 5):
 *
 * - System `TransferSol` and `CreateAccount` funded by the wallet: native legs (to = destination
 *   or new account); the other lamport-moving System instructions, and `Assign` of the wallet's
 *   own account (its new owner program may debit every lamport): native legs without amount;
 * - SPL Token / Token-2022 `TransferChecked` with the wallet as authority: a token leg (asset =
 *   mint, to = destination token account); `Transfer` names no mint: a leg without asset;
 * - instructions of programs known to move nothing (compute budget, memo, associated token
 *   account creation, nonce advance, ...) are skipped; anything else may move value through CPI,
 *   which is invisible here: an unknown movement (no to, asset or amount).
 *
 * Network: the configured cluster the request names (`chain.network`, else the body's
 * `network`). A transaction does not carry its cluster (the blockhash or durable nonce is not
 * tied to a genesis hash in the bytes), so a contradiction (spec rule 5) cannot be proven from
 * bytes; a `network` naming an unconfigured cluster is refused by the transfer and broadcast
 * routes (`createChainTargets`).
 */
import { getAddressDecoder, getAddressEncoder, type Address } from '@solana/kit';
import { getCreateAccountInstructionDataDecoder, getTransferSolInstructionDataDecoder, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  getTransferCheckedInstructionDataDecoder,
  getTransferInstructionDataDecoder,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { SigningContext } from '../signing/pipeline.ts';
import type { PolicyActionName } from './facts.ts';
import type { RequestLeg } from './evaluation-types.ts';
import { addTotals, decoded, hexOf, unknownMovement, type DecodedRequest } from './request-facts-common.ts';
import { parseSolanaWire, type WireInstruction, type WireMessage } from './solana-wire.ts';

const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const COMPUTE_BUDGET_PROGRAM_ADDRESS = 'ComputeBudget111111111111111111111111111111';
const MEMO_PROGRAM_ADDRESSES = ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo'];

/** The service's Solana network names (solanaNetworks, CHAINS config) in the chainId form. */
const networks: Readonly<Record<string, string>> = {
  SOLANA: 'solana:mainnet',
  SOLANA_DEVNET: 'solana:devnet',
  SOLANA_TESTNET: 'solana:testnet',
};

export function solanaNetworkOf(name: string | null | undefined): string | null {
  return name != null && Object.hasOwn(networks, name) ? networks[name]! : null;
}

const SYSTEM = { createAccount: 0, assign: 1, transferSol: 2, moving: new Set([3, 5, 11, 13]) };
const TOKEN = { transfer: 3, transferChecked: 12 };
/**
 * Token instructions that move nothing out of the wallet (initialize, revoke, freeze, sync, ...).
 * Approve, SetAuthority, MintTo, Burn, CloseAccount and the Token-2022 extensions are unknown movements.
 */
const TOKEN_NEUTRAL = new Set([0, 1, 2, 5, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23, 24]);

type ProgramKind = 'system' | 'token' | 'token-2022' | 'neutral';
const addressEncoder = getAddressEncoder();
const addressDecoder = getAddressDecoder();
/** Programs by the hex of their key, so instructions are matched without base58. */
const programs = new Map<string, ProgramKind>(
  (
    [
      [SYSTEM_PROGRAM_ADDRESS, 'system'],
      [TOKEN_PROGRAM_ADDRESS, 'token'],
      [TOKEN_2022_PROGRAM_ADDRESS, 'token-2022'],
      [COMPUTE_BUDGET_PROGRAM_ADDRESS, 'neutral'],
      [ASSOCIATED_TOKEN_PROGRAM_ADDRESS, 'neutral'],
      ...MEMO_PROGRAM_ADDRESSES.map((memo) => [memo, 'neutral'] as const),
    ] as const
  ).map(([program, kind]) => [hexOf(new Uint8Array(addressEncoder.encode(program as Address))), kind]),
);

const transferSolData = getTransferSolInstructionDataDecoder();
const createAccountData = getCreateAccountInstructionDataDecoder();
const transferData = getTransferInstructionDataDecoder();
const transferCheckedData = getTransferCheckedInstructionDataDecoder();

function keyAt(message: WireMessage, index: number): Uint8Array {
  return message.keys.subarray(32 * index, 32 * index + 32);
}

/** Account i of an instruction (base58); null when it comes from an address lookup table (not resolvable offline). */
function accountOf(message: WireMessage, ix: WireInstruction, i: number): string | null {
  const index = ix.accounts[i];
  return index === undefined || index >= message.keyCount ? null : addressDecoder.decode(keyAt(message, index));
}

function u32le(data: Uint8Array): number | null {
  return data.length >= 4 ? (data[0]! | (data[1]! << 8) | (data[2]! << 16)) + data[3]! * 0x1000000 : null;
}

/** The leg of a System instruction, undefined when it moves nothing from the wallet. */
function systemLeg(message: WireMessage, ix: WireInstruction, wallet: string): RequestLeg | undefined {
  const kind = u32le(ix.data);
  if (kind === null) return unknownMovement();
  if (kind === SYSTEM.transferSol || kind === SYSTEM.createAccount) {
    if (accountOf(message, ix, 0) !== wallet) return undefined;
    let amount: bigint | null;
    try {
      amount = kind === SYSTEM.transferSol ? transferSolData.decode(ix.data).amount : createAccountData.decode(ix.data).lamports;
    } catch {
      amount = null;
    }
    return { to: accountOf(message, ix, 1), asset: 'native', amount };
  }
  // Assigning the wallet's own account to another program lets that program debit all its lamports later.
  if (kind === SYSTEM.assign) return accountOf(message, ix, 0) === wallet ? { to: null, asset: 'native', amount: null } : undefined;
  return SYSTEM.moving.has(kind) ? { to: null, asset: 'native', amount: null } : undefined;
}

/** The leg of an SPL Token / Token-2022 instruction, undefined when it moves nothing from the wallet. */
function tokenLeg(message: WireMessage, ix: WireInstruction, wallet: string): RequestLeg | undefined {
  const kind = ix.data.length > 0 ? ix.data[0]! : null;
  if (kind === TOKEN.transferChecked || kind === TOKEN.transfer) {
    const checked = kind === TOKEN.transferChecked;
    // Accounts: Transfer (source, destination, authority), TransferChecked (source, mint, destination, authority).
    if (accountOf(message, ix, checked ? 3 : 2) !== wallet) return undefined;
    let amount: bigint | null;
    try {
      amount = (checked ? transferCheckedData : transferData).decode(ix.data).amount;
    } catch {
      amount = null;
    }
    return { to: accountOf(message, ix, checked ? 2 : 1), asset: checked ? accountOf(message, ix, 1) : null, amount };
  }
  return kind !== null && TOKEN_NEUTRAL.has(kind) ? undefined : unknownMovement();
}

function legOf(message: WireMessage, ix: WireInstruction, wallet: string, notes: string[]): RequestLeg | undefined {
  if (ix.programIndex >= message.keyCount) {
    notes.push('instruction program not among the static accounts');
    return unknownMovement();
  }
  const program = keyAt(message, ix.programIndex);
  const kind = programs.get(hexOf(program));
  if (kind === 'neutral') return undefined;
  if (kind === 'system') return systemLeg(message, ix, wallet);
  if (kind === undefined) {
    notes.push(`instruction of program ${addressDecoder.decode(program)} not decoded`);
    return unknownMovement();
  }
  const leg = tokenLeg(message, ix, wallet);
  if (leg && leg.asset === null) notes.push(`${kind === 'token' ? 'SPL Token' : 'Token-2022'} instruction without a decodable mint`);
  return leg;
}

function decodeTransaction(request: DecodedRequest, base64: string, wallet: string): void {
  const message = parseSolanaWire(Buffer.from(base64, 'base64'));
  if (message === null) {
    request.undecoded.push('not a decodable legacy or v0 Solana transaction');
    return;
  }
  for (const ix of message.instructions) {
    const leg = legOf(message, ix, wallet, request.undecoded);
    if (!leg) continue;
    if (leg.asset !== null && leg.amount === null) request.undecoded.push(`amount of a ${leg.asset === 'native' ? 'native' : 'token'} movement not decoded`);
    request.legs.push(leg);
  }
}

export function decodeSolanaRequest(context: SigningContext, action: PolicyActionName): DecodedRequest {
  // Messages and raw bytes carry no cluster and no meaning.
  if (context.operation !== 'transaction') return decoded();
  const input = context.input as { transaction?: string; network?: string };
  // The bytes prove no cluster (see above), so the body's network cannot be contradicted.
  const request = decoded(solanaNetworkOf(context.chain.network) ?? solanaNetworkOf(input.network));
  decodeTransaction(request, input.transaction ?? '', context.wallet.address);
  // The transfer route built this transaction for the owner the partner named; the token leg's
  // destination is that owner's associated token account, so policies see the owner as payee.
  const named = action === 'transfer' ? context.transfer : null;
  if (named?.tokenAddress) for (const leg of request.legs) if (leg.asset === named.tokenAddress) leg.to = named.to;
  addTotals(request, true);
  return request;
}
