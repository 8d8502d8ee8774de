/**
 * Addresses, gas limits and ABI fragments of sponsored ERC-20 transfers (ERC-4337 v0.8 with
 * EIP-7702-delegated EOAs and a verifying SingletonPaymasterV8). The ABI fragments are ours.
 */
import { getAddress, type Address } from 'viem';
import { entryPoint08Address } from 'viem/account-abstraction';

/** EntryPoint v0.8 at its canonical address (the same on every chain, our devnet included). */
export const ENTRY_POINT_V08_ADDRESS: Address = getAddress(entryPoint08Address);

/** Simple7702Account (v0.8): the delegate of sponsored wallets; it hard-codes the v0.8 EntryPoint. */
export const SIMPLE_7702_ACCOUNT_ADDRESS: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B';

/**
 * Gas limits proven by handleOps from a relayer on anvil for a TestUSDC transfer (first op with its
 * 7702 authorization included). No bundler takes a margin, so preVerificationGas is 0. A token with a
 * costlier `transfer` (a proxy such as Circle's USDC) needs a higher callGasLimit.
 */
export const DEFAULT_SPONSORED_GAS_LIMITS = {
  verificationGasLimit: 60_000n,
  callGasLimit: 60_000n,
  preVerificationGas: 0n,
  paymasterVerificationGasLimit: 40_000n,
  paymasterPostOpGasLimit: 0n,
} as const;

export type SponsoredGasLimits = { [K in keyof typeof DEFAULT_SPONSORED_GAS_LIMITS]: bigint };

/** initCode of an op that carries an EIP-7702 authorization (the EntryPoint hashes the delegate in its place). */
export const EIP7702_INIT_CODE_MARKER = '0x7702' as const;

/** First byte of SingletonPaymaster paymasterData: verifying mode (0) << 1 | allowAllBundlers (1). */
export const PAYMASTER_MODE_VERIFYING_ANY_BUNDLER = 0x01;

export { SIMPLE_7702_EXECUTE_ABI } from '@wallet/domain/calls/encoding.ts';

export { ERC20_TRANSFER_ABI } from '@wallet/domain/shared/erc20-transfer-abi.ts';

/** SingletonPaymasterV8 `getHash(mode, packedUserOp)`: what the sponsor signs (EIP-191) for an op. */
export const PAYMASTER_GET_HASH_ABI = [
  {
    type: 'function',
    name: 'getHash',
    stateMutability: 'view',
    inputs: [
      { name: '_mode', type: 'uint8' },
      {
        name: '_userOp',
        type: 'tuple',
        components: [
          { name: 'sender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'initCode', type: 'bytes' },
          { name: 'callData', type: 'bytes' },
          { name: 'accountGasLimits', type: 'bytes32' },
          { name: 'preVerificationGas', type: 'uint256' },
          { name: 'gasFees', type: 'bytes32' },
          { name: 'paymasterAndData', type: 'bytes' },
          { name: 'signature', type: 'bytes' },
        ],
      },
    ],
    outputs: [{ name: '', type: 'bytes32' }],
  },
] as const;
