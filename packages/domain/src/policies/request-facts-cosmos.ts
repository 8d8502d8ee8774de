/**
 * Cosmos request facts. Cosmos wallets sign sign bytes (sign-raw, and sign-message, which signs
 * the message's UTF-8 bytes the same way), so a raw signature is a transaction signature when the
 * bytes are a sign document the chain would rebuild byte for byte:
 *
 * - protobuf direct: a `SignDoc` (cosmjs-types) that re-encodes to the same bytes, its `TxBody`
 *   messages read from `body_bytes`;
 * - amino JSON: a `StdSignDoc` whose canonical serialization (@cosmjs/amino `serializeSignDoc`,
 *   sorted keys, what chains verify) is exactly the bytes.
 *
 * Anything else carries no meaning (no network, no legs). In a sign document, a bank `MsgSend`
 * from the wallet gives one leg per coin; a few messages that move nothing out are skipped; every
 * other message is an unknown movement. Network: `cosmos:<chain_id>`.
 *
 * Assets: every coin's asset is its denom, the native staking denom included. A chain's native
 * denom is not reliably known here (the chain id does not name it), so Cosmos requests carry no
 * `request.value.baseUnits`: policies cap Cosmos amounts with `request.token.*` and `spend.token`
 * by denom (`uatom`, `ibc/...`).
 */
import { serializeSignDoc, type StdSignDoc } from '@cosmjs/amino';
import { fromBech32, toBech32 } from '@cosmjs/encoding';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { SignDoc, TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { SigningContext } from '../signing/pipeline.ts';
import { hexToBytes } from '../signing/common.ts';
import { addTotals, decoded, hexOf, unknownMovement, type DecodedRequest } from './request-facts-common.ts';

const MSG_SEND = '/cosmos.bank.v1beta1.MsgSend';
const AMINO_MSG_SEND = 'cosmos-sdk/MsgSend';
/** Messages (protobuf type URL or amino type) that move nothing out of the wallet. */
const NEUTRAL_MESSAGES = new Set([
  '/cosmos.gov.v1beta1.MsgVote',
  '/cosmos.gov.v1.MsgVote',
  'cosmos-sdk/MsgVote',
  'cosmos-sdk/v1/MsgVote',
  '/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward',
  'cosmos-sdk/MsgWithdrawDelegationReward',
]);
const CHAIN_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const DECIMAL = /^(0|[1-9]\d*)$/;
/** fromBech32 needs a length limit (its default is not one @scure/base accepts). */
const MAX_ADDRESS_LENGTH = 256;

interface Send {
  from: string;
  to: string;
  coins: readonly { denom: string; amount: string }[];
}

interface SignDocument {
  chainId: string;
  /** Bank sends, and the type of every other message. */
  sends: Send[];
  others: string[];
}

function directSignDoc(bytes: Uint8Array): SignDocument | null {
  let doc: SignDoc;
  let body: TxBody;
  try {
    doc = SignDoc.decode(bytes);
    // The chain verifies the signature over the SignDoc it re-encodes from the transaction.
    if (Buffer.compare(SignDoc.encode(doc).finish(), bytes) !== 0) return null;
    body = TxBody.decode(doc.bodyBytes);
  } catch {
    return null;
  }
  const document: SignDocument = { chainId: doc.chainId, sends: [], others: [] };
  for (const message of body.messages) {
    if (message.typeUrl !== MSG_SEND) {
      document.others.push(message.typeUrl);
      continue;
    }
    try {
      const send = MsgSend.decode(message.value);
      document.sends.push({ from: send.fromAddress, to: send.toAddress, coins: send.amount });
    } catch {
      document.others.push(`undecodable ${MSG_SEND}`);
    }
  }
  return document;
}

function aminoSignDoc(bytes: Uint8Array): SignDocument | null {
  // Amino sign docs are JSON objects; anything else is skipped before parsing.
  if (bytes.length < 2 || bytes[0] !== 0x7b) return null;
  let doc: StdSignDoc;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString('utf8')) as StdSignDoc;
    if (typeof doc?.chain_id !== 'string' || !Array.isArray(doc.msgs)) return null;
    if (Buffer.compare(serializeSignDoc(doc), bytes) !== 0) return null;
  } catch {
    return null;
  }
  const document: SignDocument = { chainId: doc.chain_id, sends: [], others: [] };
  for (const message of doc.msgs) {
    const value = message?.value as { from_address?: unknown; to_address?: unknown; amount?: unknown } | undefined;
    if (message?.type === AMINO_MSG_SEND && typeof value?.from_address === 'string' && typeof value.to_address === 'string' && Array.isArray(value.amount)) {
      document.sends.push({ from: value.from_address, to: value.to_address, coins: value.amount as Send['coins'] });
    } else {
      document.others.push(typeof message?.type === 'string' ? message.type : 'malformed message');
    }
  }
  return document;
}

/** The account bytes of a bech32 address (the prefix differs per chain), or null. */
function accountBytes(address: string): string | null {
  try {
    return hexOf(fromBech32(address, MAX_ADDRESS_LENGTH).data);
  } catch {
    return null;
  }
}

/**
 * A payee as policies write it: bech32 in lower case. Chains accept an all-uppercase address as
 * the same account, so without this a denylisted payee written in upper case would not match.
 */
function payeeOf(address: string): string {
  try {
    const { prefix, data } = fromBech32(address, MAX_ADDRESS_LENGTH);
    return toBech32(prefix, data, MAX_ADDRESS_LENGTH);
  } catch {
    return address;
  }
}

function signedBytes(context: SigningContext): Uint8Array {
  const input = context.input as { data?: string; message?: string };
  return context.operation === 'raw' ? hexToBytes(input.data ?? '') : Buffer.from(input.message ?? '', 'utf8');
}

export function decodeCosmosRequest(context: SigningContext): DecodedRequest {
  if (context.operation !== 'raw' && context.operation !== 'message') return decoded();
  const bytes = signedBytes(context);
  const document = directSignDoc(bytes) ?? aminoSignDoc(bytes);
  if (document === null) return decoded();
  const request = decoded(CHAIN_ID.test(document.chainId) ? `cosmos:${document.chainId}` : null);
  const wallet = accountBytes(context.wallet.address);
  for (const send of document.sends) {
    if (wallet === null || accountBytes(send.from) !== wallet) continue;
    for (const coin of send.coins) {
      const amount = typeof coin?.amount === 'string' && DECIMAL.test(coin.amount) ? BigInt(coin.amount) : null;
      if (amount === null) request.undecoded.push(`amount of ${String(coin?.denom)} not decoded`);
      request.legs.push({ to: payeeOf(send.to), asset: typeof coin?.denom === 'string' && coin.denom !== '' ? coin.denom : null, amount });
    }
  }
  for (const type of document.others) {
    if (NEUTRAL_MESSAGES.has(type)) continue;
    request.undecoded.push(`message ${type} not decoded`);
    request.legs.push(unknownMovement());
  }
  addTotals(request, false);
  return request;
}
