import { getCompiledTransactionMessageDecoder, getTransactionDecoder, type Address } from '@solana/kit';
import { ApiError, invalidRequest } from '../errors.ts';
import { beforeRecord, rpcUnavailable } from './context.ts';
import { ChainUnavailableError, type SolanaGateway } from './gateways.ts';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const ADVANCE_NONCE_INSTRUCTION = 4;

/**
 * The Solana pre-checks of a partner-built transaction, before signing or any record: lookup
 * tables exist, a durable nonce is current, otherwise the recent blockhash is still valid.
 */
export async function solanaPrecheck(gateway: SolanaGateway, base64: string): Promise<{ blockhash: string; nonceAccount: string | null }> {
  let blockhash: string;
  let instructions: { programAddressIndex: number; accountIndices?: readonly number[]; data?: Uint8Array }[];
  let staticAccounts: readonly Address[];
  let lookups: readonly { lookupTableAddress: Address }[];
  try {
    const decoded = getTransactionDecoder().decode(Buffer.from(base64, 'base64'));
    const compiled = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes);
    if (compiled.version !== 'legacy' && compiled.version !== 0) throw new Error('unsupported version');
    blockhash = compiled.lifetimeToken;
    instructions = compiled.instructions as typeof instructions;
    staticAccounts = compiled.staticAccounts;
    lookups = ('addressTableLookups' in compiled ? compiled.addressTableLookups : undefined) ?? [];
  } catch {
    throw invalidRequest('transaction is not a decodable Solana transaction (base64 of a legacy or v0 wire transaction)');
  }
  for (const lookup of lookups) {
    if (!(await beforeRecord(gateway.accountExists(lookup.lookupTableAddress)))) {
      throw new ApiError(400, 'INVALID_NONCE', `Address lookup table ${lookup.lookupTableAddress} does not exist`);
    }
  }
  const first = instructions[0];
  const data = first?.data;
  const isAdvanceNonce =
    first !== undefined &&
    staticAccounts[first.programAddressIndex] === SYSTEM_PROGRAM &&
    data !== undefined &&
    data.length >= 4 &&
    Buffer.from(data).readUInt32LE(0) === ADVANCE_NONCE_INSTRUCTION;
  if (isAdvanceNonce) {
    const accountIndex = first.accountIndices?.[0];
    const nonceAccount = accountIndex === undefined ? undefined : staticAccounts[accountIndex];
    if (!nonceAccount) throw new ApiError(400, 'INVALID_NONCE', 'The durable nonce account must be a static account of the message');
    const state = await beforeRecord(gateway.getNonceAccount(nonceAccount));
    if (!state) throw new ApiError(400, 'INVALID_NONCE', `${nonceAccount} is not an initialized durable nonce account`);
    if (state.nonce !== blockhash) {
      throw new ApiError(400, 'INVALID_NONCE', 'The durable nonce has changed since the transaction was built; rebuild it with the current nonce');
    }
    return { blockhash, nonceAccount: nonceAccount as string };
  }
  let valid: boolean;
  try {
    valid = await gateway.isBlockhashValid(blockhash);
  } catch (error) {
    if (error instanceof ChainUnavailableError) throw rpcUnavailable(error);
    throw error;
  }
  if (!valid) {
    throw new ApiError(400, 'BLOCKHASH_NOT_FOUND', 'The recent blockhash is unknown to the RPC or expired; refresh it and rebuild the transaction');
  }
  return { blockhash, nonceAccount: null };
}
