/**
 * Pure helpers of the "Reviews & cases" page: how a case's gated request, its stages and its
 * status times read in the list and the detail view.
 */

export interface CaseRequest {
  action: string;
  operation: string;
  chain: { walletType: string; chainId: string | null; network: string | null };
  transfer: { to: string; value: string; tokenAddress: string | null } | null;
}

export interface CaseTimes {
  createdAt: string;
  completedAt: string | null;
  consumedAt: string | null;
  rejectedAt: string | null;
  expiredAt: string | null;
  invalidatedAt: string | null;
  cancelledAt: string | null;
}

/** `wallet.sign.sign-transaction` → `sign-transaction`; anything else as it is. */
export function actionLabel(action: string): string {
  return action.startsWith('wallet.sign.') ? action.slice('wallet.sign.'.length) : action;
}

/** `EVM 84532`, `SOLANA devnet`, `EVM`. */
export function chainLabel(chain: CaseRequest['chain']): string {
  const where = chain.chainId ?? chain.network;
  return where ? `${chain.walletType} ${where}` : chain.walletType;
}

/** The amount in base units, with the token when it is not the native asset; null when the request moves nothing it declares. */
export function amountLabel(transfer: CaseRequest['transfer']): string | null {
  if (!transfer) return null;
  return transfer.tokenAddress ? `${transfer.value} of token ${transfer.tokenAddress}` : transfer.value;
}

/** One line per request for the list: action, chain, amount, recipient. */
export function requestSummary(request: CaseRequest): { action: string; chain: string; amount: string | null; recipient: string | null } {
  return { action: actionLabel(request.action), chain: chainLabel(request.chain), amount: amountLabel(request.transfer), recipient: request.transfer?.to ?? null };
}

/** Every status time of a case, in life-cycle order (null: the case never got there). */
export function statusTimes(times: CaseTimes): [label: string, at: string | null][] {
  return [
    ['Created', times.createdAt],
    ['Completed', times.completedAt],
    ['Consumed', times.consumedAt],
    ['Rejected', times.rejectedAt],
    ['Expired', times.expiredAt],
    ['Invalidated', times.invalidatedAt],
    ['Cancelled', times.cancelledAt],
  ];
}

/** `1 of 2 approvals`. */
export function approvalCount(stage: { requiredApprovals: number; approvals: unknown[] }): string {
  return `${stage.approvals.length} of ${stage.requiredApprovals} approval${stage.requiredApprovals === 1 ? '' : 's'}`;
}

/** Only a pending case can be cancelled (the API answers 409 for any other). */
export const isCancellable = (status: string) => status === 'pending';

/** Who may approve a stage: `finance or treasury; region eu/uk` (roles, then each attribute with its values). */
export function eligibilityLabel(eligibility: { roles: string[]; attributes?: Record<string, string[]> }): string {
  const parts = [eligibility.roles.join(' or '), ...Object.entries(eligibility.attributes ?? {}).map(([name, values]) => `${name} ${values.join('/')}`)];
  return parts.filter(Boolean).join('; ') || '—';
}
