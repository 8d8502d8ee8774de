/**
 * Solana request facts: the wire transaction is decoded with @solana/kit and the top-level
 * instructions with the System and Token programs' own codecs (spec notes 5):
 *
 * - System `TransferSol` and `CreateAccount` funded by the wallet: native legs (to = destination
 *   or new account); the other lamport-moving System instructions: native legs without amount;
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
import {
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type LegacyCompiledTransactionMessage,
  type V0CompiledTransactionMessage,
} from '@solana/kit';
import { getCreateAccountInstructionDataDecoder, getTransferSolInstructionDataDecoder, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  getTransferCheckedInstructionDataDecoder,
  getTransferInstructionDataDecoder,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { SigningContext } from '../signing/pipeline.ts';
import type { RequestLeg } from './evaluation-types.ts';
import { addTotals, assertNetworkNotContradicted, decoded, unknownMovement, type DecodedRequest } from './request-facts-common.ts';

const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const COMPUTE_BUDGET_PROGRAM_ADDRESS = 'ComputeBudget111111111111111111111111111111';
const MEMO_PROGRAM_ADDRESSES = new Set(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

/** The service's Solana network names (solanaNetworks, CHAINS config) in the chainId form. */
const networks: Readonly<Record<string, string>> = {
  SOLANA: 'solana:mainnet',
  SOLANA_DEVNET: 'solana:devnet',
  SOLANA_TESTNET: 'solana:testnet',
};

export function solanaNetworkOf(name: string | null | undefined): string | null {
  return name != null && Object.hasOwn(networks, name) ? networks[name]! : null;
}

const SYSTEM = { createAccount: 0, transferSol: 2, moving: new Set([3, 5, 11, 13]) };
const TOKEN = { transfer: 3, transferChecked: 12 };
/**
 * Token instructions that move nothing out of the wallet (initialize, revoke, freeze, sync, ...).
 * Approve, SetAuthority, MintTo, Burn, CloseAccount and the Token-2022 extensions are unknown movements.
 */
const TOKEN_NEUTRAL = new Set([0, 1, 2, 5, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23, 24]);

const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
const transferSolData = getTransferSolInstructionDataDecoder();
const createAccountData = getCreateAccountInstructionDataDecoder();
const transferData = getTransferInstructionDataDecoder();
const transferCheckedData = getTransferCheckedInstructionDataDecoder();

type CompiledMessage = LegacyCompiledTransactionMessage | V0CompiledTransactionMessage;
type CompiledInstruction = CompiledMessage['instructions'][number];

interface InstructionView {
  program: Address;
  data: CompiledInstruction['data'];
  /** Account i of the instruction; null when it comes from an address lookup table (not resolvable offline). */
  account(i: number): Address | null;
}

function decodeMessage(base64: string): CompiledMessage | null {
  try {
    const message = messageDecoder.decode(transactionDecoder.decode(Buffer.from(base64, 'base64')).messageBytes);
    return message.version === 'legacy' || message.version === 0 ? message : null;
  } catch {
    return null;
  }
}

function u32le(data: CompiledInstruction['data']): number | null {
  return data && data.length >= 4 ? (data[0]! | (data[1]! << 8) | (data[2]! << 16)) + data[3]! * 0x1000000 : null;
}

/** The leg of a System instruction, undefined when it moves nothing from the wallet. */
function systemLeg(ix: InstructionView, wallet: string): RequestLeg | undefined {
  const kind = u32le(ix.data);
  if (kind === null) return unknownMovement();
  if (kind === SYSTEM.transferSol || kind === SYSTEM.createAccount) {
    if (ix.account(0) !== wallet) return undefined;
    try {
      const amount = kind === SYSTEM.transferSol ? transferSolData.decode(ix.data!).amount : createAccountData.decode(ix.data!).lamports;
      return { to: ix.account(1), asset: 'native', amount };
    } catch {
      return { to: ix.account(1), asset: 'native', amount: null };
    }
  }
  return SYSTEM.moving.has(kind) ? { to: null, asset: 'native', amount: null } : undefined;
}

/** The leg of an SPL Token / Token-2022 instruction, undefined when it moves nothing from the wallet. */
function tokenLeg(ix: InstructionView, wallet: string): RequestLeg | undefined {
  const kind = ix.data && ix.data.length > 0 ? ix.data[0]! : null;
  if (kind === TOKEN.transferChecked || kind === TOKEN.transfer) {
    const checked = kind === TOKEN.transferChecked;
    // Accounts: Transfer (source, destination, authority), TransferChecked (source, mint, destination, authority).
    if (ix.account(checked ? 3 : 2) !== wallet) return undefined;
    let amount: bigint | null;
    try {
      amount = (checked ? transferCheckedData : transferData).decode(ix.data!).amount;
    } catch {
      amount = null;
    }
    return { to: ix.account(checked ? 2 : 1), asset: checked ? ix.account(1) : null, amount };
  }
  return kind !== null && TOKEN_NEUTRAL.has(kind) ? undefined : unknownMovement();
}

function legOf(ix: InstructionView, wallet: string, notes: string[]): RequestLeg | undefined {
  const program = ix.program;
  if (program === SYSTEM_PROGRAM_ADDRESS) return systemLeg(ix, wallet);
  if (program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS) {
    const leg = tokenLeg(ix, wallet);
    if (leg && leg.asset === null) notes.push(`${program === TOKEN_PROGRAM_ADDRESS ? 'SPL Token' : 'Token-2022'} instruction without a decodable mint`);
    return leg;
  }
  if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS || program === ASSOCIATED_TOKEN_PROGRAM_ADDRESS || MEMO_PROGRAM_ADDRESSES.has(program)) return undefined;
  notes.push(`instruction of program ${program} not decoded`);
  return unknownMovement();
}

function decodeTransaction(request: DecodedRequest, base64: string, wallet: string): void {
  const message = decodeMessage(base64);
  if (message === null) {
    request.undecoded.push('not a decodable legacy or v0 Solana transaction');
    return;
  }
  const accounts = message.staticAccounts;
  let current: CompiledInstruction | undefined;
  const view: InstructionView = {
    program: accounts[0]!,
    data: undefined,
    account: (i) => {
      const index = current?.accountIndices?.[i];
      return index === undefined ? null : (accounts[index] ?? null);
    },
  };
  for (const ix of message.instructions) {
    current = ix;
    const program = accounts[ix.programAddressIndex];
    if (program === undefined) {
      request.undecoded.push('instruction program not among the static accounts');
      request.legs.push(unknownMovement());
      continue;
    }
    view.program = program;
    view.data = ix.data;
    const leg = legOf(view, wallet, request.undecoded);
    if (leg) {
      if (leg.asset !== null && leg.amount === null) request.undecoded.push(`amount of a ${leg.asset === 'native' ? 'native' : 'token'} movement not decoded`);
      request.legs.push(leg);
    }
  }
}

export function decodeSolanaRequest(context: SigningContext): DecodedRequest {
  const input = context.input as { transaction?: string; network?: string };
  const claimed = solanaNetworkOf(input.network);
  const request = decoded(solanaNetworkOf(context.chain.network) ?? claimed);
  // Messages and raw bytes carry no cluster and no meaning.
  if (context.operation !== 'transaction') return decoded();
  // Bytes prove no cluster (see above); kept so a future proof plugs in here.
  assertNetworkNotContradicted(claimed, null);
  decodeTransaction(request, input.transaction ?? '', context.wallet.address);
  addTotals(request, true);
  return request;
}
