import type {
  AuditEntry,
  CustodyMode,
  EncryptedShare,
  ShareRole,
  WalletRecord,
  WalletStore,
  WalletType,
  WalletCustody,
  WalletStatus,
} from '@wallet/domain';
import { DuplicateWalletError, walletCreatedEvent } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';
import { afterPosition, newestFirst } from './keyset.ts';
import { isUniqueViolation } from './prisma-errors.ts';

type Row = Prisma.WalletGetPayload<object>;

/** Prisma row or driver row (same column aliases) to the domain record. */
export function toWalletRecord(row: Row): WalletRecord {
  return {
    ...row,
    type: row.type as WalletType,
    scheme: row.scheme as WalletRecord['scheme'],
    status: row.status as WalletStatus,
    custody: row.custody as WalletCustody,
    custodyMode: row.custodyMode as CustodyMode,
  };
}

const walletColumns = `id, project_id AS "projectId", type, scheme, address, public_key AS "publicKey", status,
  user_identifier AS "userIdentifier", user_identifier_type AS "userIdentifierType", cosmos_prefix AS "cosmosPrefix",
  custody, custody_mode AS "custodyMode", claimed_at AS "claimedAt", claimed_by_user_id AS "claimedByUserId", migrated_at AS "migratedAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export function createWalletStore({ prisma, query }: Database): WalletStore {
  async function existingId(
    projectId: string,
    identity: { userIdentifierType: string; userIdentifier: string; type: string; scheme: string },
  ) {
    const existing = await prisma.wallet.findUnique({
      where: {
        projectId_userIdentifierType_userIdentifier_type_scheme: {
          projectId,
          userIdentifierType: identity.userIdentifierType,
          userIdentifier: identity.userIdentifier,
          type: identity.type,
          scheme: identity.scheme,
        },
      },
      select: { id: true },
    });
    return existing?.id;
  }

  return {
    async create(wallet, shares, audit) {
      // XOR halves (user, service), or FROST or DKLs23 (the two online shares and the recovery contributions).
      if (shares.length < 2 || shares.length > 6) throw new Error('a wallet is stored with two to six shares');
      try {
        // One statement (so one implicit transaction, one round trip): wallet, every share, audit row
        // and the wallet.created event.
        const createdAt = new Date();
        const event = walletCreatedEvent({ ...wallet, createdAt, claimedByUserId: null });
        const base = 19;
        const shareRows = shares.map((_, i) => `($1, $${base + 5 * i}, $${base + 5 * i + 1}, $${base + 5 * i + 2}, $${base + 5 * i + 3}, $${base + 5 * i + 4})`);
        const ev = base + 5 * shares.length;
        const [row] = await query<Row>(
          `WITH wallet AS (
             INSERT INTO wallets (id, project_id, type, scheme, address, public_key, status, user_identifier,
                                  user_identifier_type, cosmos_prefix, custody, custody_mode, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $16, $18, $17, $17)
             RETURNING ${walletColumns}),
           shares AS (
             INSERT INTO key_shares (wallet_id, role, epoch, kek_id, iv, ciphertext)
             VALUES ${shareRows.join(', ')}),
           audit AS (
             INSERT INTO audit_log (project_id, api_key_id, wallet_id, request_id, action, details)
             VALUES ($11, $12, $1, $13, $14, $15)),
           event AS (
             INSERT INTO events (id, project_id, type, data) VALUES ($${ev}, $2, $${ev + 1}, $${ev + 2}::jsonb))
           SELECT * FROM wallet`,
          [
            wallet.id, wallet.projectId, wallet.type, wallet.scheme, wallet.address, wallet.publicKey, wallet.status,
            wallet.userIdentifier, wallet.userIdentifierType, wallet.cosmosPrefix,
            audit.projectId, audit.apiKeyId, audit.requestId, audit.action, JSON.stringify(audit.details),
            wallet.custody, createdAt, wallet.custodyMode,
            ...shares.flatMap((share) => [share.role, share.epoch ?? 0, share.kekId, Buffer.from(share.iv), Buffer.from(share.ciphertext)]),
            event.id, event.type, JSON.stringify(event.data),
          ],
        );
        return toWalletRecord(row!);
      } catch (error) {
        if (!isUniqueViolation(error) && (error as { code?: string }).code !== '23505') throw error;
        const id = await existingId(wallet.projectId, wallet);
        if (!id) throw error;
        throw new DuplicateWalletError(id);
      }
    },

    async findById(walletId) {
      const row = await prisma.wallet.findUnique({ where: { id: walletId } });
      return row ? toWalletRecord(row) : null;
    },

    // On every wallet route's path: one statement on the driver.
    async findInProject(projectId, walletId) {
      const [row] = await query<Row>(`SELECT ${walletColumns} FROM wallets WHERE id = $1 AND project_id = $2`, [walletId, projectId]);
      return row ? toWalletRecord(row) : null;
    },

    async list(filter) {
      const rows = await prisma.wallet.findMany({
        where: {
          projectId: filter.projectId,
          type: filter.type,
          status: filter.status,
          // The list's `ready` also needs every share persisted here (spec: key generation and share persistence).
          ...(filter.status === 'ready' ? { custody: 'api_key' } : {}),
          userIdentifier: filter.userIdentifier,
          userIdentifierType: filter.userIdentifierType,
          address: filter.address,
          ...afterPosition(filter.after),
        },
        orderBy: newestFirst,
        take: filter.limit,
      });
      return rows.map(toWalletRecord);
    },

    async updateIdentifier(projectId, walletId, change, audit: AuditEntry) {
      try {
        const [updated] = await prisma.$transaction([
          prisma.wallet.updateManyAndReturn({ where: { id: walletId, projectId }, data: change }),
          prisma.auditLog.create({ data: auditData(audit) }),
        ]);
        return updated[0] ? toWalletRecord(updated[0]) : null;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const current = await prisma.wallet.findFirst({ where: { id: walletId, projectId } });
        const id = current && (await existingId(projectId, { ...current, ...change }));
        if (!id) throw error;
        throw new DuplicateWalletError(id);
      }
    },

    // On every signing request's path: wallet and shares in one statement on the driver.
    async findWithShares(projectId, walletId) {
      const rows = await query<Row & { shareRole: string | null; shareEpoch: number; shareKekId: string; shareIv: Uint8Array; shareCiphertext: Uint8Array }>(
        `SELECT ${walletColumns.replace(/(^|,\s*)(\w+)/g, '$1w.$2')},
                s.role AS "shareRole", s.epoch AS "shareEpoch", s.kek_id AS "shareKekId", s.iv AS "shareIv", s.ciphertext AS "shareCiphertext"
           FROM wallets w LEFT JOIN key_shares s ON s.wallet_id = w.id
          WHERE w.id = $1 AND w.project_id = $2`,
        [walletId, projectId],
      );
      const first = rows[0];
      if (!first) return null;
      const shares = rows.flatMap((row) =>
        row.shareRole
          ? [{ role: row.shareRole as ShareRole, epoch: Number(row.shareEpoch), kekId: row.shareKekId, iv: new Uint8Array(row.shareIv), ciphertext: new Uint8Array(row.shareCiphertext) }]
          : [],
      );
      return { wallet: toWalletRecord(first), shares };
    },

    async findShares(walletId): Promise<EncryptedShare[]> {
      const rows = await prisma.keyShare.findMany({ where: { walletId }, orderBy: [{ role: 'asc' }, { epoch: 'asc' }] });
      return rows.map((row) => ({
        role: row.role as ShareRole,
        epoch: row.epoch,
        kekId: row.kekId,
        iv: new Uint8Array(row.iv),
        ciphertext: new Uint8Array(row.ciphertext),
      }));
    },
  };
}
