import { notFound } from '../errors.ts';
import type { ApiKeyRecord, ApiKeyStore, TransactionRecord, WalletRecord } from '../ports.ts';
import { uuidSchema } from '../shared/zod.ts';
import type { StaffPrincipal } from '../staff/service.ts';
import type { ConsoleStore, ProjectRecord } from './ports.ts';

/** Whose data a console request may see: the signed-in staff member's partner. */
export type PartnerPrincipal = Pick<StaffPrincipal, 'partnerId'>;

/**
 * The one place that decides whether a project, API key, wallet or record belongs to the staff
 * member's partner. Missing, malformed and foreign ids all end in the same 404 body, the one the
 * REST routes answer, so existence never leaks across partners.
 */
export function createPartnerScope(deps: { store: ConsoleStore; apiKeys: Pick<ApiKeyStore, 'findById'> }) {
  const valid = (id: string) => uuidSchema.safeParse(id).success;
  return {
    async project(principal: PartnerPrincipal, projectId: string): Promise<ProjectRecord> {
      const project = valid(projectId) ? await deps.store.findProject(principal.partnerId, projectId) : null;
      if (!project) throw notFound('Project');
      return project;
    },
    async apiKey(principal: PartnerPrincipal, apiKeyId: string): Promise<ApiKeyRecord> {
      const key = valid(apiKeyId) ? await deps.apiKeys.findById(apiKeyId) : null;
      if (!key || key.partnerId !== principal.partnerId) throw notFound('API key');
      return key;
    },
    async wallet(principal: PartnerPrincipal, walletId: string): Promise<WalletRecord> {
      const wallet = valid(walletId) ? await deps.store.findWallet(principal.partnerId, walletId) : null;
      if (!wallet) throw notFound('Wallet');
      return wallet;
    },
    async transaction(principal: PartnerPrincipal, transactionId: string): Promise<TransactionRecord> {
      const record = valid(transactionId) ? await deps.store.findTransaction(principal.partnerId, transactionId) : null;
      if (!record) throw notFound('Transaction');
      return record;
    },
  };
}

export type PartnerScope = ReturnType<typeof createPartnerScope>;
