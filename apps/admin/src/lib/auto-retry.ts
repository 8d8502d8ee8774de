import { formatUnits } from '@wallet/domain/chains/amounts.ts';

/** One attempt of a record's `autoRetry` (tRPC `transactions.get`). */
export interface AttemptView {
  hash: string | null;
  maxFeePerGas?: string | undefined;
  maxPriorityFeePerGas?: string | undefined;
  recentBlockhash?: string | undefined;
  sentAt: string;
  outcome: string;
}

export interface AutoRetryView {
  enabled: boolean;
  maxFeePerGas: string | null;
  attempts: AttemptView[];
  reason?: string | undefined;
}

const WEI = /^\d+$/;

/** `12.5 gwei` for `12500000000`; the value unchanged when it is not whole wei. */
export const formatGwei = (wei: string) => (WEI.test(wei) ? `${formatUnits(wei, 9)} gwei` : wei);

/** The typed ceiling as the API takes it: trimmed, null when empty (the built-in ceiling). */
export const typedCeiling = (typed: string): string | null => (typed.trim() === '' ? null : typed.trim());
