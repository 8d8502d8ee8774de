import { formatEth } from './sponsorship.ts';

/** What each stage of a sponsored record means (docs/sponsorship.md, "Stages"), in one line. */
const stageMeanings: Record<string, string> = {
  accepted: 'Recorded; nothing signed yet',
  requires_action: 'A policy sent the signature to review; the partner resumes it once the review is approved',
  signed: 'The signed operation and its hash are stored; not submitted yet',
  submission_unknown: 'A submission may have happened; the chain shows nothing yet',
  submitted: "The relayer's transaction is in the node",
  included: "The operation's UserOperationEvent is on chain",
  delivery_unverified: "Included with success, but the token's Transfer log is not proven in this operation's receipt",
};

/** The one-line meaning of a stage; an unknown one is still in progress (the API may add stages). */
export const stageMeaning = (stage: string | null | undefined): string =>
  stage ? (stageMeanings[stage] ?? 'A stage this console does not know yet: still in progress') : 'No stage recorded';

/** The gas the sponsor paid, in ETH with every decimal (`94135000000000` → `0.000094135 ETH`); null until the chain shows it. */
export const gasCostInEth = (actualGasCost: string | null | undefined): string | null => (actualGasCost ? formatEth(actualGasCost) : null);

/**
 * The console link of the review a record waits for: the approval case on the cases page, in the
 * case's project and environment when known (the record does not name its environment).
 */
export function reviewHref(reviewId: string, location: { projectId: string; environment?: string | null }): string {
  const query = new URLSearchParams({ project: location.projectId, ...(location.environment ? { env: location.environment } : {}), case: reviewId });
  return `/cases?${query.toString()}`;
}
