/**
 * EVM request facts. Transactions arrive as the validated body fields (transfers and
 * cancellations pass the transaction the service built, in the same form), so nothing is
 * RLP-decoded: `value` is a native leg, and the calldata is read with viem's ABI decoder for the
 * two ERC-20 calls that name an amount directly (spec notes 5):
 *
 * - `transfer(address,uint256)` (0xa9059cbb): a token leg to the calldata recipient;
 * - `approve(address,uint256)` (0x095ea7b3): `request.spender`, `request.token.address` (= tx.to)
 *   and `request.token.value.baseUnits` as request facts, no leg (an approval moves nothing yet).
 *
 * Any other calldata (transferFrom, multicall, ...) is a contract call: `request.to` is the
 * contract and its amounts are undecoded (they count toward no meter). Addresses are lower-cased.
 */
import { decodeAbiParameters, type Hex } from 'viem';
import type { SigningContext } from '../signing/pipeline.ts';
import { decoded, addTotals, type DecodedRequest } from './request-facts-common.ts';

const TRANSFER = '0xa9059cbb';
const APPROVE = '0x095ea7b3';
const TRANSFER_FROM = '0x23b872dd';
const addressAndAmount = [{ type: 'address' }, { type: 'uint256' }] as const;

interface EvmTransactionBody {
  transaction: { to: string; value: string; data?: string; chainId: number };
}
interface TypedDataBody {
  typedData: { primaryType: string; domain: { name?: string; version?: string; chainId?: number | string; verifyingContract?: string } };
}
interface AuthorizationBody {
  authorization: { address?: string; contractAddress?: string; chainId: number };
}

/** Chain ids in the chainId fact form (positive decimal); 0 (EIP-7702 "any chain") names none. */
function chainIdOf(value: number | string | undefined): string | null {
  if (value === undefined) return null;
  const text = String(value);
  return /^[1-9]\d{0,18}$/.test(text) ? text : null;
}

/** `[address, amount]` of calldata `selector || abi(address, uint256)`, or null when it does not decode. */
function addressAndAmountOf(data: string): readonly [string, bigint] | null {
  try {
    const [account, amount] = decodeAbiParameters(addressAndAmount, `0x${data.slice(10)}` as Hex);
    return [account.toLowerCase(), amount];
  } catch {
    return null;
  }
}

function decodeTransaction(body: EvmTransactionBody): DecodedRequest {
  const tx = body.transaction;
  const request = decoded(chainIdOf(tx.chainId));
  const to = tx.to.toLowerCase();
  const value = BigInt(tx.value);
  request.facts['request.value.baseUnits'] = tx.value;
  if (value > 0n) request.legs.push({ to, asset: 'native', amount: value });
  const data = tx.data;
  if (data !== undefined && data.length > 2) {
    if (data.length < 10) {
      request.undecoded.push('calldata shorter than a function selector');
    } else {
      const selector = data.slice(0, 10).toLowerCase();
      request.facts['request.function.selector'] = selector;
      decodeCall(request, selector, to, data);
    }
  }
  // A contract call moves no decodable value, but its destination is still the contract.
  if (request.legs.length === 0) request.facts['request.to'] = to;
  addTotals(request, true);
  return request;
}

function decodeCall(request: DecodedRequest, selector: string, contract: string, data: string): void {
  if (selector !== TRANSFER && selector !== APPROVE) {
    const what = selector === TRANSFER_FROM ? 'ERC-20 transferFrom' : `call ${selector}`;
    request.undecoded.push(`${what}: amounts not decoded`);
    return;
  }
  const args = addressAndAmountOf(data);
  if (args === null) {
    request.undecoded.push(`calldata of ${selector === TRANSFER ? 'transfer' : 'approve'} does not decode`);
    return;
  }
  const [account, amount] = args;
  if (selector === TRANSFER) {
    request.legs.push({ to: account, asset: contract, amount });
    return;
  }
  request.facts['request.spender'] = account;
  request.facts['request.token.address'] = contract;
  request.facts['request.token.value.baseUnits'] = amount.toString();
}

function decodeTypedData(body: TypedDataBody): DecodedRequest {
  const { primaryType, domain } = body.typedData;
  const request = decoded(chainIdOf(domain.chainId));
  const facts = request.facts;
  facts['request.typedData.primaryType'] = primaryType;
  if (domain.name !== undefined) facts['request.typedData.domain.name'] = domain.name;
  if (domain.version !== undefined) facts['request.typedData.domain.version'] = domain.version;
  if (request.network !== null) facts['request.typedData.domain.chainId'] = request.network;
  if (domain.verifyingContract !== undefined) facts['request.typedData.domain.verifyingContract'] = domain.verifyingContract.toLowerCase();
  return request;
}

function decodeAuthorization(body: AuthorizationBody): DecodedRequest {
  const { address, contractAddress, chainId } = body.authorization;
  const request = decoded(chainIdOf(chainId));
  const delegate = address ?? contractAddress;
  if (delegate !== undefined) request.facts['request.authorization.address'] = delegate.toLowerCase();
  return request;
}

export function decodeEvmRequest(context: SigningContext): DecodedRequest {
  const input = context.input;
  switch (context.operation) {
    case 'transaction':
      return decodeTransaction(input as unknown as EvmTransactionBody);
    case 'typedData':
      return decodeTypedData(input as unknown as TypedDataBody);
    case 'authorization':
      return decodeAuthorization(input as unknown as AuthorizationBody);
    default:
      // EIP-191 messages and raw hashes name no network and move nothing that can be read.
      return decoded();
  }
}
