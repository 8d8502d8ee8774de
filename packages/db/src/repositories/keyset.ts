import type { KeysetPosition } from '@wallet/domain';

/** Prisma `where` part for rows after a keyset position in (createdAt desc, id desc) order. */
export const afterPosition = (after: KeysetPosition | undefined) =>
  after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {};

/** The order every keyset list uses: newest first, id breaking ties. */
export const newestFirst: [{ createdAt: 'desc' }, { id: 'desc' }] = [{ createdAt: 'desc' }, { id: 'desc' }];
