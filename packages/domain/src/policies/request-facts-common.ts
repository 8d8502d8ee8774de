/** What the per-wallet-type decoders of request-facts.ts share. */
import { invalidRequest } from '../errors.ts';
import type { SigningContext } from '../signing/pipeline.ts';
import type { RequestLeg } from './evaluation-types.ts';
import type { PolicyActionName, PolicyFactName } from './facts.ts';

export type FactMap = Partial<Record<PolicyFactName, string>>;

/** One wallet type's reading of a request, before the totals are added. */
export interface DecodedRequest {
  network: string | null;
  facts: FactMap;
  legs: RequestLeg[];
  /** Notes on what was not decoded; joined into `RequestFacts.undecoded`. */
  undecoded: string[];
}

/** A decoder never throws on bytes it cannot read (the signer answers those with 400); only on a proven contradiction. */
export type RequestDecoder = (context: SigningContext, action: PolicyActionName) => DecodedRequest;

export function decoded(network: string | null = null): DecodedRequest {
  return { network, facts: {}, legs: [], undecoded: [] };
}

/** Value may leave the wallet here, but neither what nor to whom is known: rules on `request.to`/`request.token.*` cannot pass it. */
export function unknownMovement(): RequestLeg {
  return { to: null, asset: null, amount: null };
}

/**
 * Adds `request.value.baseUnits` (when the wallet type counts native value: the decoded native
 * total, "0" without native legs) and `request.token.value.baseUnits` (only when exactly one
 * token asset is moved and every token leg names its asset). Undecoded amounts count nowhere
 * (spec rule 7), so a total is the sum of the decoded amounts. Facts already set are kept.
 */
export function addTotals(request: DecodedRequest, countsNative: boolean): void {
  let native = 0n;
  let token: string | null | undefined;
  let tokenTotal = 0n;
  let severalTokens = false;
  for (const leg of request.legs) {
    if (leg.asset === 'native') {
      if (leg.amount !== null) native += leg.amount;
      continue;
    }
    if (leg.asset === null || (token !== undefined && token !== leg.asset)) severalTokens = true;
    token = leg.asset;
    if (leg.amount !== null) tokenTotal += leg.amount;
  }
  if (countsNative) request.facts['request.value.baseUnits'] ??= native.toString();
  if (token !== undefined && token !== null && !severalTokens) request.facts['request.token.value.baseUnits'] ??= tokenTotal.toString();
}

/**
 * Spec rule 5: a `network` the body names that contradicts the network the transaction proves is
 * 400 INVALID_REQUEST. Both are in the chainId form (`sui:testnet`); an unknown side proves nothing.
 */
export function assertNetworkNotContradicted(claimed: string | null, proven: string | null): void {
  if (claimed !== null && proven !== null && claimed !== proven) {
    throw invalidRequest(`network ${claimed} contradicts the transaction, which is for ${proven}`);
  }
}

export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
