/**
 * The contracts between the three parts of policy evaluation:
 *
 * - request facts (request-facts.ts): what a signing intent is, decoded once with the chains' own
 *   libraries: its policy action, network, and one leg per value movement;
 * - the evaluator (evaluate.ts): pure; judges the applying policies on those facts and on meter
 *   values, and returns the decision with a trace;
 * - the meter store (a port, implemented in @wallet/db): holds spend meters and reserves a request's
 *   spend in one statement that checks the decision still holds on the meters' current values.
 */
import type { Environment } from '../ports.ts';
import type { PolicyActionName, PolicyFactName, PolicyWalletType } from './facts.ts';

/** One movement of value out of the wallet that the request makes (decoded, never guessed). */
export interface RequestLeg {
  /** Payee: EVM recipient (the calldata recipient for ERC-20 `transfer`), Solana owner or token account, ... */
  to: string | null;
  /**
   * `native`, or the asset id in the fact catalog's `asset` form (ERC-20 contract lower-cased, SPL
   * mint, denom, CODE:ISSUER); null when value may leave here but the asset is not decodable (an
   * SPL `Transfer` names no mint; an instruction of an unknown program): `request.token.address`
   * is then undecidable on this leg, the request's `request.token.*` totals are absent, and the
   * leg counts toward no meter.
   */
  asset: string | null;
  /** Amount in the asset's base units; null when the amount could not be decoded (it then counts toward no meter). */
  amount: bigint | null;
}

/** A signing intent as policies see it. */
export interface RequestFacts {
  walletType: PolicyWalletType;
  walletId: string;
  apiKeyId: string;
  /** The policy action the request is (`transfer`, `sign_transaction`, `raw_signature`, ...). */
  action: PolicyActionName;
  /**
   * Network in the wallet type's chainId form (`"84532"`, `solana:devnet`, `stellar:testnet`,
   * `sui:localnet`, `cosmos:<chain-id>`); null when the request proves none (raw signatures, EVM
   * personal messages). Selectors with a `chainId` set do not apply to a request without one.
   */
  network: string | null;
  /**
   * Facts that are the same for every leg (`request.chainId`, `request.function.selector`,
   * typed-data domain, `request.spender`, ...). A fact absent here and in the leg is undecidable.
   */
  facts: Partial<Record<PolicyFactName, string>>;
  /**
   * Value movements. A rule is judged once per leg (`request.to`, `request.token.address` come
   * from the leg; `request.value.baseUnits` and `request.token.value.baseUnits` are the request's
   * total of that asset, so splitting a payment into legs does not get under a per-request cap).
   * A request that moves nothing decodable has no legs and is judged once without leg facts.
   */
  legs: RequestLeg[];
  /** Why part of the request could not be decoded (shown in dry-run traces), or null. */
  undecoded: string | null;
}

/** Identity of one spend meter: key x wallet x network x asset x fixed window. */
export interface MeterKey {
  projectId: string;
  environment: Environment;
  apiKeyId: string;
  walletId: string;
  /** The request's network (chainId form); meters need a network, so requests without one are not metered. */
  network: string;
  /** `native` or the asset id (as in RequestLeg.asset, never null: legs without an asset are not metered). */
  asset: string;
  windowMs: number;
  windowStart: Date;
}

/** A meter as usage snapshots show it: signed (`spent`) and held by signatures in progress (`reserved`). */
export interface MeterValue {
  spent: bigint;
  reserved: bigint;
}

/** A meter touched by one request: its key and how much this request adds (0 when it only reads it). */
export interface MeterCharge {
  key: MeterKey;
  amount: bigint;
}

/**
 * A range of a meter's total (spent + reserved, before the request), bounds included; null is
 * unbounded. The decision a verdict carries holds while every meter's total stays in its range.
 */
export interface MeterBound {
  min: bigint | null;
  max: bigint | null;
}

/**
 * What the deciding callback answers: deny (nothing written), or reserve the charges provided
 * each meter's total is still within `bounds` (by meter id; a meter without one is unbounded).
 */
export type MeterVerdict<T> = { reserve: false; result: T } | { reserve: true; result: T; bounds: Map<string, MeterBound> };

/** Spend held for one signature; `commit` when a signature exists, `release` only when none ever will. */
export interface MeterReservationHandle {
  /** Reservation id (stored), or null when nothing was reserved. */
  id: string | null;
  commit(): Promise<void>;
  release(): Promise<void>;
}

export interface MeterStore {
  /**
   * Decides and reserves so that concurrent requests never overshoot a limit: passes the meters'
   * totals (spent + reserved by meter id; missing meters are 0) to `decide`; when it answers
   * `reserve: true`, one atomic database statement adds each charge to its meter (creating
   * missing meters) and stores a reservation, only if every meter's total is still within the
   * verdict's bounds; otherwise nothing is written and `decide` runs again on the current totals.
   * A denial is final only when decided on totals just read from the database. With no charges
   * it only calls `decide`.
   */
  reserve<T>(
    charges: MeterCharge[],
    decide: (totals: Map<string, bigint>) => MeterVerdict<T>,
  ): Promise<{ result: T; reservation: MeterReservationHandle }>;
  /** Current values of the meters (missing = zero), without locking: usage snapshots and dry runs. */
  read(keys: MeterKey[]): Promise<Map<string, MeterValue>>;
}

/** The map key of a meter in `MeterStore` results. */
export function meterKeyId(key: MeterKey): string {
  return [key.projectId, key.environment, key.apiKeyId, key.walletId, key.network, key.asset, key.windowMs, key.windowStart.getTime()].join('|');
}
