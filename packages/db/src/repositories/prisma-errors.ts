import { Prisma } from '../generated/prisma/client.ts';

/** True for a unique-constraint violation, whichever driver adapter raised it. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}
