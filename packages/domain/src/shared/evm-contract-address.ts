import { z } from 'zod';
import { checksumEvmAddress, isEvmAddressWithValidChecksum } from './evm-address.ts';

/**
 * A configured EVM contract address: 0x and 40 hex digits (a mixed-case one must carry a valid
 * checksum), not the zero address; returned checksummed. No viem: configuration parsing stays light.
 */
export const evmContractAddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address (0x and 40 hex digits)')
  .transform((value, ctx) => {
    if (!isEvmAddressWithValidChecksum(value)) {
      ctx.addIssue({ code: 'custom', message: 'has an invalid checksum (mixed case)' });
      return z.NEVER;
    }
    const checksummed = checksumEvmAddress(value);
    if (/^0x0{40}$/.test(checksummed)) {
      ctx.addIssue({ code: 'custom', message: 'must not be the zero address' });
      return z.NEVER;
    }
    return checksummed;
  });
