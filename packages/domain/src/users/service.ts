import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { encryptShare, wipe, type KekProvider } from '../custody/shares.ts';
import { userCreatedEvent, walletClaimedEvent } from '../events/events.ts';
import type { CustodyStore, UserStore } from '../ports.ts';
import { parseInput } from '../shared/zod.ts';
import { createWalletBody, normalizeIdentifier, userIdentifierTypes, type WalletView } from '../wallets/schemas.ts';
import { toWalletView } from '../wallets/service.ts';
import { newWallet } from '../wallets/new-wallet.ts';

export const signUpInput = z.strictObject({
  projectId: z.uuid(),
  identifier: z.string().trim().min(1).max(256),
  identifierType: z.enum(userIdentifierTypes),
});

export const clientWalletInput = z.strictObject({
  projectId: z.uuid(),
  type: createWalletBody.shape.type,
  userIdentifier: z.string().trim().min(1).max(256),
  userIdentifierType: z.enum(userIdentifierTypes),
});

export interface UserServiceDeps {
  users: UserStore;
  custody: CustodyStore;
  keks: KekProvider;
}

/**
 * The end-user side, simulated: signing up claims the project's wallets of that identifier (after
 * which REST signing refuses them), and client-side pregeneration makes a wallet whose user share
 * stays with the client until it is migrated.
 */
export function createUserService({ users, custody, keks }: UserServiceDeps) {
  return {
    async signUp(input: z.input<typeof signUpInput>) {
      const parsed = parseInput(signUpInput, input);
      const identifier = normalizeIdentifier(parsed.identifierType, parsed.identifier);
      const result = await users.signUp(
        { id: randomUUID(), projectId: parsed.projectId, identifier, identifierType: parsed.identifierType },
        ({ user, created, claimed }) => [
          ...(created ? [userCreatedEvent(user)] : []),
          ...claimed.map((wallet) => walletClaimedEvent(user, wallet)),
        ],
      );
      return {
        userId: result.user.id,
        created: result.created,
        claimedWalletIds: result.claimed.map((w) => w.id),
      };
    },

    /** Returns the wallet and the client's user share (hex); the service keeps only the service share. */
    async pregenerateClientWallet(input: z.input<typeof clientWalletInput>): Promise<{ wallet: WalletView; userShare: string }> {
      const parsed = parseInput(clientWalletInput, input);
      parseInput(createWalletBody, { type: parsed.type, userIdentifier: parsed.userIdentifier, userIdentifierType: parsed.userIdentifierType });
      const { wallet: row, user, service } = newWallet({ ...parsed }, 'client');
      const serviceShare = encryptShare(keks, row.id, 'service', service);
      const userShare = Buffer.from(user).toString('hex');
      wipe(user, service);
      const wallet = await custody.createClientWallet(
        row,
        serviceShare,
        { projectId: parsed.projectId, apiKeyId: null, walletId: row.id, requestId: null, action: 'wallet.pregenerate', details: { type: parsed.type } },
      );
      return { wallet: toWalletView(wallet), userShare };
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
