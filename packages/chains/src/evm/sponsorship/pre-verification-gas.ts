/**
 * preVerificationGas of a relayed operation, from the operation's own calldata: what the relayer's
 * `handleOps` transaction costs beyond the gas the EntryPoint measures, so that the EntryPoint's
 * refund from the paymaster's deposit covers the relayer and `actualGasCost` (and the daily budget)
 * counts what the operation really cost:
 *
 * - 21,000 intrinsic gas and the handleOps calldata at EIP-2028's 16 gas per non-zero byte and 4 per
 *   zero byte, plus RELAYER_UNMEASURED_GAS for the EntryPoint's own work outside the operation's
 *   measured phases (loop, event, refund transfer);
 * - or, when more, EIP-7623's calldata floor (21,000 + 10 per zero byte + 40 per non-zero byte: a
 *   transaction pays at least that however little it executes), counted as if the measured phases
 *   used nothing, so it bounds the relayer's cost for any calldata size;
 * - AUTHORIZATION_GAS more when the operation carries its EIP-7702 authorization.
 *
 * The calldata is counted with the signatures the operation will carry (78 bytes of paymaster data,
 * a 65-byte owner signature) as non-zero bytes, before they exist: preVerificationGas is part of
 * what both sign.
 */
import { encodeFunctionData, hexToBytes, type Address, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { packUserOperation, type SponsoredUserOperation } from './user-operation.ts';

const INTRINSIC_GAS = 21_000n;
/**
 * What the wallet's EIP-7702 authorization adds to the relayer's transaction: EIP-7702 charges 25,000
 * per authorization and refunds 12,500 when the authority's account exists; measured on anvil, a
 * first operation's relayer gas beyond the EntryPoint's is 12.7k above a later one's.
 */
export const AUTHORIZATION_GAS = 13_000n;
/**
 * The EntryPoint's work that no phase of the operation measures. Measured on anvil with the
 * TestUSDC transfer: 45.7k of relayer gas beyond the EntryPoint's measured gas on a later operation,
 * of which 21,000 intrinsic and 7.7k of calldata as counted here; kept with 0.5k of headroom. Gas
 * refunds (a cleared allowance, the authorization's) lower what the relayer pays below this bound.
 */
export const RELAYER_UNMEASURED_GAS = 17_500n;
/** mode (1) ‖ validUntil (6) ‖ validAfter (6) ‖ the sponsor's 65-byte signature. */
const PAYMASTER_DATA_STUB: Hex = `0x${'ff'.repeat(78)}`;
const OWNER_SIGNATURE_STUB: Hex = `0x${'ff'.repeat(65)}`;
/** The beneficiary word and the preVerificationGas word itself, counted at their largest. */
const BENEFICIARY_STUB: Address = '0xffffffffffffffffffffffffffffffffffffffff';
const PRE_VERIFICATION_GAS_STUB = (1n << 32n) - 1n;

/** Standard (EIP-2028) and floor (EIP-7623) calldata gas of `data`. */
export function calldataGas(data: Hex): { standard: bigint; floor: bigint } {
  let zero = 0n;
  let nonZero = 0n;
  for (const byte of hexToBytes(data)) {
    if (byte === 0) zero++;
    else nonZero++;
  }
  return { standard: zero * 4n + nonZero * 16n, floor: zero * 10n + nonZero * 40n };
}

/** The preVerificationGas a relayer needs for `op` (its gas limits, fees, callData and authorization as built). */
export function relayerPreVerificationGas(op: SponsoredUserOperation): bigint {
  const stub = { ...op, preVerificationGas: PRE_VERIFICATION_GAS_STUB, paymasterData: PAYMASTER_DATA_STUB, signature: OWNER_SIGNATURE_STUB };
  const data = encodeFunctionData({ abi: entryPoint08Abi, functionName: 'handleOps', args: [[packUserOperation(stub)], BENEFICIARY_STUB] });
  const { standard, floor } = calldataGas(data);
  const measuredBeside = INTRINSIC_GAS + standard + RELAYER_UNMEASURED_GAS;
  const floorBound = INTRINSIC_GAS + floor;
  return (measuredBeside > floorBound ? measuredBeside : floorBound) + (op.authorization ? AUTHORIZATION_GAS : 0n);
}
