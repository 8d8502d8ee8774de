/**
 * Sui request facts: the TransactionData is parsed with @mysten/sui's BCS types. When the wallet
 * is the sender, a `TransferObjects` of coins split off the gas coin (`SplitCoins(GasCoin, [pure
 * u64...])`, what `tx.splitCoins(tx.gas, ...)` + `tx.transferObjects` build) is a native SUI leg
 * to the pure address; transferring the gas coin itself moves its whole balance (a leg without
 * amount). Move calls, publishes and transfers of other objects are unknown movements (Sui has no
 * token facts: spec rule 7 meters native SUI only). A sponsor (gas owner, not sender) pays fees
 * only, which policies exclude.
 *
 * Network (spec rule 5): a TransactionData names its chain only with a `ValidDuring` expiration
 * (chain identifier = the genesis checkpoint digest, whose first 4 bytes in hex name the network).
 * @mysten/sui 1.45 does not parse that expiration, and the signer refuses what it cannot parse,
 * so today no signable transaction proves a network; `suiNetworkOfExpiration` reads it once the
 * SDK does. The body's `network` (chainId form) is otherwise the request's network.
 */
import { bcs } from '@mysten/sui/bcs';
import { fromBase58, fromBase64 } from '@mysten/sui/utils';
import type { SigningContext } from '../signing/pipeline.ts';
import type { RequestLeg } from './evaluation-types.ts';
import { addTotals, assertNetworkNotContradicted, decoded, hexOf, unknownMovement, type DecodedRequest } from './request-facts-common.ts';

/** First 4 bytes (hex) of the genesis checkpoint digest: the Sui chain identifier. */
const chainIdentifiers: Readonly<Record<string, string>> = {
  '35834a8a': 'sui:mainnet',
  '4c78adac': 'sui:testnet',
};

/** The network an expiration proves: `ValidDuring.chain` (base58 digest) of a known chain, else null. */
export function suiNetworkOfExpiration(expiration: unknown): string | null {
  const chain = (expiration as { ValidDuring?: { chain?: unknown } } | null)?.ValidDuring?.chain;
  if (typeof chain !== 'string') return null;
  let digest: Uint8Array;
  try {
    digest = fromBase58(chain);
  } catch {
    return null;
  }
  const id = digest.length === 32 ? hexOf(digest.subarray(0, 4)) : '';
  return Object.hasOwn(chainIdentifiers, id) ? chainIdentifiers[id]! : null;
}

/**
 * The request's network: the one the expiration proves, else the body's `network` (chainId form).
 * 400 INVALID_REQUEST when the two contradict (spec rule 5).
 */
export function suiRequestNetwork(bodyNetwork: unknown, expiration: unknown): string | null {
  const claimed = typeof bodyNetwork === 'string' && /^sui:(mainnet|testnet|devnet|localnet)$/.test(bodyNetwork) ? bodyNetwork : null;
  const proven = suiNetworkOfExpiration(expiration);
  assertNetworkNotContradicted(claimed, proven);
  return proven ?? claimed;
}

type TransactionData = ReturnType<typeof bcs.TransactionData.parse>;
type Programmable = NonNullable<NonNullable<TransactionData['V1']>['kind']['ProgrammableTransaction']>;
type Argument = ReturnType<typeof bcs.Argument.parse>;

function parse(base64: string): TransactionData | null {
  try {
    return bcs.TransactionData.parse(Buffer.from(base64, 'base64'));
  } catch {
    return null;
  }
}

function pureOf(program: Programmable, argument: Argument): Uint8Array | null {
  const input = argument.Input !== undefined ? program.inputs[argument.Input] : undefined;
  return input?.Pure ? fromBase64(input.Pure.bytes) : null;
}

function u64Of(bytes: Uint8Array | null): bigint | null {
  return bytes !== null && bytes.length === 8 ? BigInt(bcs.u64().parse(bytes)) : null;
}

/** Legs of a programmable transaction sent by the wallet. */
function legsOf(program: Programmable, request: DecodedRequest): void {
  // Amounts of each `SplitCoins(GasCoin, ...)` command, by command index.
  const splits = new Map<number, (bigint | null)[]>();
  program.commands.forEach((command, index) => {
    if (command.SplitCoins) {
      if (command.SplitCoins.coin.GasCoin) splits.set(index, command.SplitCoins.amounts.map((a) => u64Of(pureOf(program, a))));
      return;
    }
    if (command.MergeCoins) return;
    if (!command.TransferObjects) {
      request.undecoded.push(command.MoveCall ? `Move call ${command.MoveCall.package}::${command.MoveCall.module}::${command.MoveCall.function} not decoded` : `${command.$kind} not decoded`);
      request.legs.push(unknownMovement());
      return;
    }
    const recipient = pureOf(program, command.TransferObjects.address);
    const to = recipient !== null && recipient.length === 32 ? `0x${hexOf(recipient)}` : null;
    for (const object of command.TransferObjects.objects) request.legs.push(transferLeg(object, to, splits, request.undecoded));
  });
}

function transferLeg(object: Argument, to: string | null, splits: Map<number, (bigint | null)[]>, notes: string[]): RequestLeg {
  if (object.GasCoin) {
    notes.push('the gas coin is transferred: its balance is not known');
    return { to, asset: 'native', amount: null };
  }
  const [command, result] = object.NestedResult ?? (object.Result !== undefined ? [object.Result, 0] : [-1, -1]);
  const amounts = splits.get(command);
  if (amounts && (object.NestedResult !== undefined || amounts.length === 1) && result < amounts.length) {
    return { to, asset: 'native', amount: amounts[result] ?? null };
  }
  notes.push('transfer of an object that is not a coin split off the gas coin not decoded');
  return unknownMovement();
}

export function decodeSuiRequest(context: SigningContext): DecodedRequest {
  if (context.operation !== 'transaction') return decoded();
  const input = context.input as { transaction: string; network?: unknown };
  const data = parse(input.transaction)?.V1;
  const request = decoded(suiRequestNetwork(input.network, data?.expiration));
  const program = data?.kind.ProgrammableTransaction;
  if (!data || !program) {
    request.undecoded.push(data ? 'not a programmable transaction' : 'not a decodable Sui TransactionData');
  } else if (data.sender === context.wallet.address.toLowerCase()) {
    legsOf(program, request);
  }
  addTotals(request, true);
  return request;
}
