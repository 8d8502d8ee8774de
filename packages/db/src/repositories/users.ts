import type { NewEvent, SignUpResult, UserStore, WalletRecord } from '@wallet/domain';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { isUniqueViolation } from './prisma-errors.ts';
import { toWalletRecord } from './wallets.ts';

export function eventData(event: NewEvent): Prisma.EventCreateManyInput {
  return { ...event, data: event.data as Prisma.InputJsonObject };
}

export function createUserStore(prisma: PrismaClient): UserStore {
  return {
    async find(projectId, identifierType, identifier) {
      return prisma.user.findUnique({ where: { projectId_identifierType_identifier: { projectId, identifierType, identifier } } });
    },

    async recordEvents(events) {
      if (events.length > 0) await prisma.event.createMany({ data: events.map(eventData) });
    },

    async signUp(user, makeEvents) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await prisma.$transaction(async (tx): Promise<SignUpResult> => {
            const existing = await tx.user.findUnique({
              where: {
                projectId_identifierType_identifier: {
                  projectId: user.projectId,
                  identifierType: user.identifierType,
                  identifier: user.identifier,
                },
              },
            });
            const row = existing ?? (await tx.user.create({ data: user }));
            const claimed = await tx.wallet.updateManyAndReturn({
              where: {
                projectId: user.projectId,
                userIdentifierType: user.identifierType,
                userIdentifier: user.identifier,
                claimedAt: null,
              },
              data: { claimedAt: new Date(), claimedByUserId: row.id },
            });
            const outcome: SignUpResult = {
              user: row,
              created: !existing,
              claimed: claimed.map((w) => toWalletRecord(w)) as WalletRecord[],
            };
            const events = makeEvents(outcome);
            if (events.length > 0) await tx.event.createMany({ data: events.map(eventData) });
            return outcome;
          });
        } catch (error) {
          // Two sign-ups of one identifier at once: the loser retries and finds the winner's user.
          if (!isUniqueViolation(error) || attempt > 2) throw error;
        }
      }
    },
  };
}
