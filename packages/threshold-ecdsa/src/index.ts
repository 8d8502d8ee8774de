/**
 * @wallet/threshold-ecdsa: threshold ECDSA on secp256k1 by DKLs23 (Doerner, Kondi, Lee, shelat,
 * "Threshold ECDSA in Three Rounds", IACR ePrint 2023/765): 2-of-2 signing between participants 1 and 2,
 * with a degree-1 key sharing that also gives the offline recovery participant 3 a share.
 * No service code: no transport, no storage. Implemented from the paper, not externally audited.
 * @module
 */
export { DkgSession, type DkgResult, type OfflineContribution } from './dkg.ts';
export { combineOfflineContributions } from './offline.ts';
export { OtSetupSession } from './baseot.ts';
export { SignSession, Presignature, type EcdsaSignature, type PendingSignature } from './sign.ts';
export { KeyShare, type OtStatus } from './keyshare.ts';
export { pointMultiplyBuild } from './group.ts';
export { ThresholdEcdsaError, ABORT_MESSAGE, type ThresholdEcdsaErrorCode } from './errors.ts';
export type { PartyId } from './session.ts';
export { keygenParty, otSetupParty, presignParty, refreshParty, type Party, type KeygenResult } from './parties.ts';
export { RefreshSession, refreshOfflineShare, type RefreshContribution, type RefreshResult } from './refresh.ts';
export { dealKeyShares, type DealtKey, type DealtOfflineShare } from './import.ts';
export { recoverShareSecret, proveShareKnowledge, verifyShareKnowledge, type Participant, type ShareProof } from './recover.ts';
