import {
  DuplicateProjectError,
  type ConsoleStore,
  type EndpointDelivery,
  type StoredEvent,
} from '@wallet/domain';
import type { Database } from '../database.ts';
import { identifierPrefixScan } from './identifier-prefix.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { toApiKeyRecord, withPartner } from './api-keys.ts';
import { isUniqueViolation } from './prisma-errors.ts';
import { toTransactionRecord } from './transactions.ts';
import { toWalletRecord } from './wallets.ts';
import { afterPosition, newestFirst } from './keyset.ts';
import { deliveryLogInclude, toDeliveryLog } from './webhooks.ts';


const isEvmHex = (value: string) => /^0x[0-9a-fA-F]+$/.test(value);


/** The console's reads across one partner's projects (the partner check itself is in the domain's PartnerScope). */
export function createConsoleStore({ prisma, query }: Database): ConsoleStore {
  const partnerProjectIds = async (partnerId: string) =>
    (await prisma.project.findMany({ where: { partnerId }, select: { id: true } })).map((p) => p.id);

  return {
    async listProjects(partnerId) {
      const rows = await prisma.project.findMany({
        where: { partnerId },
        include: { _count: { select: { wallets: true, apiKeys: { where: { revokedAt: null } } } } },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      return rows.map(({ _count, ...p }) => ({ ...p, walletCount: _count.wallets, apiKeyCount: _count.apiKeys }));
    },

    async createProject(project) {
      try {
        return await prisma.project.create({ data: project });
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateProjectError();
        throw error;
      }
    },

    async findProject(partnerId, projectId) {
      return prisma.project.findFirst({ where: { id: projectId, partnerId } });
    },

    async listApiKeys(projectId) {
      const rows = await prisma.apiKey.findMany({ where: { projectId }, include: withPartner, orderBy: newestFirst });
      return rows.map(toApiKeyRecord);
    },

    async findWallet(partnerId, walletId) {
      const row = await prisma.wallet.findFirst({ where: { id: walletId, project: { partnerId } } });
      return row ? toWalletRecord(row) : null;
    },

    async listWallets(filter) {
      const addressMatch = (address: string): Prisma.WalletWhereInput =>
        isEvmHex(address) ? { address: { equals: address, mode: 'insensitive' } } : { address };
      const identifierMatch = (identifier: string): Prisma.WalletWhereInput => ({
        userIdentifier: { in: [...new Set([identifier, identifier.toLowerCase()])] },
      });
      const and: Prisma.WalletWhereInput[] = [afterPosition(filter.after)];
      if (filter.search !== undefined) and.push({ OR: [addressMatch(filter.search), identifierMatch(filter.search)] });
      if (filter.address !== undefined) and.push(addressMatch(filter.address));
      if (filter.userIdentifier !== undefined) and.push(identifierMatch(filter.userIdentifier));
      const rows = await prisma.wallet.findMany({
        where: {
          ...(filter.projectId ? { projectId: filter.projectId } : { projectId: { in: await partnerProjectIds(filter.partnerId) } }),
          type: filter.type,
          status: filter.status,
          ...(filter.status === 'ready' ? { custody: 'api_key' } : {}),
          ...(filter.claimed === undefined ? {} : { claimedAt: filter.claimed ? { not: null } : null }),
          AND: and,
        },
        orderBy: newestFirst,
        take: filter.limit,
      });
      return rows.map(toWalletRecord);
    },

    async findTransaction(partnerId, transactionId) {
      const row = await prisma.transactionRecord.findFirst({ where: { id: transactionId, partnerId } });
      return row ? toTransactionRecord(row) : null;
    },

    async listTransactions(filter) {
      // With a hash but no project, the partner's project ids let the (project_id, hash) index serve.
      const projectIds = !filter.projectId && filter.hash !== undefined ? await partnerProjectIds(filter.partnerId) : undefined;
      const and: Prisma.TransactionRecordWhereInput[] = [afterPosition(filter.after)];
      if (filter.walletIds !== undefined) and.push({ walletId: { in: filter.walletIds } });
      if (filter.chain !== undefined) and.push({ OR: [{ chainId: filter.chain }, { network: filter.chain }] });
      if (filter.token !== undefined) {
        and.push(
          'native' in filter.token
            ? { tokenAddress: null }
            : { OR: filter.token.addresses.map((a) => (isEvmHex(a) ? { tokenAddress: { equals: a, mode: 'insensitive' as const } } : { tokenAddress: a })) },
        );
      }
      const rows = await prisma.transactionRecord.findMany({
        where: {
          partnerId: filter.partnerId,
          ...(filter.projectId ? { projectId: filter.projectId } : projectIds ? { projectId: { in: projectIds } } : {}),
          walletId: filter.walletId,
          status: filter.status,
          intentKind: filter.intentKind,
          hash: filter.hash,
          ...(filter.createdFrom || filter.createdBefore ? { createdAt: { gte: filter.createdFrom, lt: filter.createdBefore } } : {}),
          AND: and,
        },
        orderBy: newestFirst,
        take: filter.limit,
      });
      return rows.map(toTransactionRecord);
    },

    async walletIdsOfUser({ partnerId, projectId, prefix, limit }) {
      const projectIds = projectId ? [projectId] : await partnerProjectIds(partnerId);
      const scan = identifierPrefixScan({ table: 'wallets', column: 'user_identifier', select: 'id, user_identifier', projects: '$1::uuid[]', prefix: '$2', limit: '$3', alias: 'w' });
      const rows = await query<{ id: string }>(
        `SELECT w.id FROM ${scan} WHERE starts_with(lower(w.user_identifier), lower($2)) LIMIT $3`,
        [projectIds, prefix, limit],
      );
      return rows.map((r) => r.id);
    },

    async walletUsers(walletIds) {
      if (walletIds.length === 0) return [];
      const rows = await prisma.wallet.findMany({ where: { id: { in: walletIds } }, select: { id: true, userIdentifier: true, userIdentifierType: true } });
      return rows.map((r) => ({ walletId: r.id, userIdentifier: r.userIdentifier, userIdentifierType: r.userIdentifierType }));
    },

    async transactionEvents(projectId, transactionId) {
      const rows = await prisma.event.findMany({
        where: { projectId, transactionId },
        include: { deliveries: { include: deliveryLogInclude, orderBy: { id: 'asc' } } },
        orderBy: { seq: 'asc' },
      });
      return rows.map(({ deliveries, ...event }) => ({
        event: { ...event, seq: event.seq.toString(), data: event.data as Record<string, unknown> } satisfies StoredEvent,
        deliveries: deliveries.map(toDeliveryLog),
      }));
    },

    async endpointDeliveries(endpointId, before, limit) {
      const rows = await prisma.webhookDelivery.findMany({
        where: { endpointId, ...(before !== undefined ? { id: { lt: BigInt(before) } } : {}) },
        include: { ...deliveryLogInclude, event: { select: { type: true, createdAt: true } } },
        orderBy: { id: 'desc' },
        take: limit,
      });
      return rows.map((row): EndpointDelivery => ({ ...toDeliveryLog(row), type: row.event.type, eventCreatedAt: row.event.createdAt }));
    },

    async broadcastsPerDay(projectId, since) {
      return query<{ day: string; status: string; count: number }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status, count(*)::int AS count
           FROM transaction_records
          WHERE project_id = $1 AND created_at >= $2
          GROUP BY 1, 2
          ORDER BY 1, 2`,
        [projectId, since],
      );
    },
  };
}
