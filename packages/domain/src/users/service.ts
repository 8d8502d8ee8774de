import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { wipe } from '../custody/types.ts';
import type { KeyVault } from '../custody/vault.ts';
import { externalWalletVerifiedEvent, userCreatedEvent, walletClaimedEvent } from '../events/events.ts';
import { getAddress, isAddress, isHex, verifyMessage } from 'viem';
import { invalidRequest, notFound } from '../errors.ts';
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

export const externalWalletInput = z.strictObject({
  projectId: z.uuid(),
  identifier: z.string().trim().min(1).max(256),
  identifierType: z.enum(userIdentifierTypes),
  address: z.string().refine((a) => isAddress(a, { strict: false }), 'an EVM address'),
  signature: z.string().refine((s) => isHex(s) && s.length === 132, 'a 65-byte hex signature (0x…)'),
  walletProvider: z.string().trim().min(1).max(64).optional(),
});

/** What the user's external wallet signs (EIP-191) to prove it belongs to them. */
export const externalWalletChallenge = (userId: string, address: string) =>
  `Link wallet ${getAddress(address)} to user ${userId}`;

export interface UserServiceDeps {
  users: UserStore;
  custody: CustodyStore;
  vault: Pick<KeyVault, 'createWalletKey'>;
}

/**
 * The end-user side, simulated: signing up claims the project's wallets of that identifier (after
 * which REST signing refuses them), and client-side pregeneration makes a wallet whose user share
 * stays with the client until it is migrated.
 */
export function createUserService({ users, custody, vault }: UserServiceDeps) {
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

    /**
     * A user proves an external EVM wallet is theirs by signing `externalWalletChallenge` with it;
     * the service checks the signature and records `user.external_wallet_verified`.
     */
    async verifyExternalWallet(input: z.input<typeof externalWalletInput>) {
      const parsed = parseInput(externalWalletInput, input);
      const identifier = normalizeIdentifier(parsed.identifierType, parsed.identifier);
      const user = await users.find(parsed.projectId, parsed.identifierType, identifier);
      if (!user) throw notFound('User');
      const address = getAddress(parsed.address);
      const message = externalWalletChallenge(user.id, address);
      const valid = await verifyMessage({ address, message, signature: parsed.signature as `0x${string}` }).catch(() => false);
      if (!valid) throw invalidRequest(`signature: not a signature of "${message}" by ${address}`);
      const verifiedAt = new Date();
      await users.recordEvents([externalWalletVerifiedEvent(user, address, parsed.walletProvider, verifiedAt)]);
      return { userId: user.id, walletAddress: address, verifiedAt: verifiedAt.toISOString() };
    },

    /** The message a user signs to link an external wallet. */
    async externalWalletChallenge(input: { projectId: string; identifier: string; identifierType: string; address: string }) {
      const parsed = parseInput(externalWalletInput.omit({ signature: true, walletProvider: true }), input);
      const user = await users.find(parsed.projectId, parsed.identifierType, normalizeIdentifier(parsed.identifierType, parsed.identifier));
      if (!user) throw notFound('User');
      return { userId: user.id, message: externalWalletChallenge(user.id, parsed.address) };
    },

    /** Returns the wallet and the client's user share (hex); the service keeps only the service share. */
    async pregenerateClientWallet(input: z.input<typeof clientWalletInput>): Promise<{ wallet: WalletView; userShare: string }> {
      const parsed = parseInput(clientWalletInput, input);
      parseInput(createWalletBody, { type: parsed.type, userIdentifier: parsed.userIdentifier, userIdentifierType: parsed.userIdentifierType });
      const { wallet: row, shares, clientUserShare } = await newWallet(vault, { ...parsed }, 'client');
      const userShare = Buffer.from(clientUserShare!).toString('hex');
      wipe(clientUserShare);
      const wallet = await custody.createClientWallet(
        row,
        shares[0]!,
        { projectId: parsed.projectId, apiKeyId: null, walletId: row.id, requestId: null, action: 'wallet.pregenerate', details: { type: parsed.type } },
      );
      return { wallet: toWalletView(wallet), userShare };
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
