import { randomBytes } from 'node:crypto';
import type { NewEvent, UserRecord, WalletRecord } from '../ports.ts';

/** Event ids are `evt_` and 24 random bytes, base64url; stable across delivery retries. */
export const newEventId = () => `evt_${randomBytes(24).toString('base64url')}`;

const event = (projectId: string, type: string, data: Record<string, unknown>): NewEvent => ({
  id: newEventId(),
  projectId,
  type,
  data,
});

export const userCreatedEvent = (user: UserRecord) =>
  event(user.projectId, 'user.created', { userId: user.id, userCreatedAt: user.createdAt.toISOString() });

export const walletClaimedEvent = (user: UserRecord, wallet: WalletRecord) =>
  event(user.projectId, 'wallet.pregen_claimed', {
    userId: user.id,
    walletId: wallet.id,
    walletAddress: wallet.address,
    walletType: wallet.type,
    claimedAt: (wallet.claimedAt ?? new Date()).toISOString(),
  });

/** Every REST signature (messages too, with chainId null) of a wallet. */
export const transactionSignedEvent = (projectId: string, wallet: WalletRecord, chainId: string | null, signedAt: Date) =>
  event(projectId, 'transaction.signed', {
    userId: wallet.claimedByUserId,
    walletId: wallet.id,
    walletAddress: wallet.address,
    chainId,
    signedAt: signedAt.toISOString(),
  });

export const externalWalletVerifiedEvent = (user: UserRecord, walletAddress: string, walletProvider: string | undefined, verifiedAt: Date) =>
  event(user.projectId, 'user.external_wallet_verified', {
    userId: user.id,
    walletAddress,
    ...(walletProvider ? { walletProvider } : {}),
    verifiedAt: verifiedAt.toISOString(),
  });

/** A wallet was created; `userId` is its claiming user, null for a wallet pregenerated for an identifier. */
export const walletCreatedEvent = (wallet: Pick<WalletRecord, 'id' | 'projectId' | 'address' | 'type' | 'createdAt' | 'claimedByUserId'>) =>
  event(wallet.projectId, 'wallet.created', {
    userId: wallet.claimedByUserId,
    walletId: wallet.id,
    walletAddress: wallet.address,
    walletType: wallet.type,
    walletCreatedAt: wallet.createdAt.toISOString(),
  });
