/**
 * Building blocks of one sponsored ERC-20 transfer (import from '@wallet/chains/sponsorship'): no
 * keys are held here; every signature is made by the caller over a 32-byte hash and passed in.
 * The devnet deployment is in '@wallet/chains/devnets', the relayer and bundler (alto) test helpers in
 * '@wallet/chains/testing'.
 */
export {
  ENTRY_POINT_V08_ADDRESS,
  SIMPLE_7702_ACCOUNT_ADDRESS,
  DEFAULT_SPONSORED_GAS_LIMITS,
  EIP7702_INIT_CODE_MARKER,
  PAYMASTER_MODE_VERIFYING_ANY_BUNDLER,
  type SponsoredGasLimits,
} from './constants.ts';
export { simulateTokenTransfer, type SimulateTransferParams, type TransferSimulation } from './simulate-transfer.ts';
export { readDelegation, type DelegationState } from './delegation.ts';
export { authorizationHash, signedAuthorization, verifyAuthorization, type AuthorizationParams } from './authorization.ts';
export { entryPointNonce } from './entry-point-nonce.ts';
export {
  buildSponsoredTransfer,
  maxOperationCostWei,
  packUserOperation,
  type BuildSponsoredTransferParams,
  type SponsoredUserOperation,
} from './user-operation.ts';
export { sponsorshipHash, sponsorshipDigest, sponsorshipPrefix, withSponsorSignature, type SponsorshipWindow } from './sponsorship-hash.ts';
export { readSponsorshipHash } from './read-sponsorship-hash.ts';
export { userOperationHash, withOwnerSignature } from './owner-signature.ts';
export { serializeUserOperation, parseUserOperation } from './serialize.ts';
export { prepareHandleOpsTransaction, type HandleOpsRequest, type PrepareHandleOpsParams } from './relayer-transaction.ts';
export {
  relayerTransaction,
  relayerTransactionDigest,
  signedRelayerTransaction,
  type RelayerTransaction,
  type RelayerTransactionFields,
} from './relayer-signing.ts';
export { UserOperationRejectedError, UserOperationRevertedError, entryPointRejection, type BundlerRefusal } from './rejection.ts';
export {
  estimateUserOperationGas,
  sendUserOperation,
  getUserOperationReceipt,
  bundlerGasPrice,
  DUMMY_SIGNATURE,
  STUB_PAYMASTER_DATA,
  type BundlerUserOperationReceipt,
  type BundlerFees,
} from './bundler.ts';
export { BundlerRpcError, BundlerUnreachableError, DEFAULT_BUNDLER_TIMEOUT_MS, type BundlerCallOptions } from './bundler-rpc.ts';
export { paymasterDeposit } from './paymaster-deposit.ts';
export { findUserOperationEvent, type UserOperationEventFound } from './find-user-operation-event.ts';
export { userOperationOutcome, type UserOperationOutcome, type OutcomeExpectation, type ReceiptLog } from './user-operation-outcome.ts';
export type { SignatureInput } from './signature.ts';
export { createSponsoredOperationChain } from './operation-chain.ts';
