/**
 * @wallet/threshold-ecdsa: 2-of-2 threshold ECDSA on secp256k1 by DKLs23 (Doerner, Kondi, Lee, shelat,
 * "Threshold ECDSA in Three Rounds", IACR ePrint 2023/765). No service code: no transport, no storage.
 * @module
 */
export { DkgSession, type DkgResult, type OfflineContribution } from './dkg.ts';
export { combineOfflineContributions } from './offline.ts';
export { OtSetupSession } from './baseot.ts';
export { SignSession, Presignature, type EcdsaSignature, type PendingSignature } from './sign.ts';
export { KeyShare, type OtStatus } from './keyshare.ts';
export { ThresholdEcdsaError, ABORT_MESSAGE, type ThresholdEcdsaErrorCode } from './errors.ts';
export type { PartyId } from './session.ts';
