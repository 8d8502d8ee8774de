/**
 * Where a fault-injection test may kill the process in the middle of a broadcast (CRASH_AT, read
 * outside production only): right after the nonce is reserved, after the signature, after the
 * record's commit, and after the node accepted the transaction (before that is saved); for a
 * sponsored operation, once its signed operation is stored (before submission) and once the
 * submission was accepted (before that is saved); for a fee replacement, once it is stored signed
 * (before it is sent).
 */
export const CRASH_POINTS = ['nonce-allocated', 'signed', 'record-committed', 'broadcast', 'sponsored-persisted', 'sponsored-submitted', 'replacement-stored'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Called at each crash point; the production value does nothing. */
export type CrashAt = (point: CrashPoint) => void;
