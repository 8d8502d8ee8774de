import { notFound } from '../errors.ts';
import type { ApiKeyRecord, ApiKeyStore, Environment, TransactionRecord, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { uuidSchema } from '../shared/zod.ts';
import type { StaffPrincipal } from '../staff/service.ts';
import type { ConsoleStore, ProjectRecord } from './ports.ts';

/** Whose data a console request may see: the signed-in staff member's partner. */
export type PartnerPrincipal = Pick<StaffPrincipal, 'partnerId'>;

/** The staff member acting, and the console request's id for the audit rows. */
export type StaffActing = Pick<StaffPrincipal, 'partnerId' | 'staffId'> & { requestId?: string | null };

/**
 * The REST caller of a project and environment, acting as the staff member: the console runs the
 * partner use cases with it (revisions and audit rows name the staff member, not an API key).
 */
export function staffCaller(principal: StaffActing, projectId: string, environment: Environment): Caller {
  return { partnerId: principal.partnerId, projectId, apiKeyId: '', environment, plan: 'scale', requestId: principal.requestId ?? null, actor: { type: 'staff', id: principal.staffId } };
}

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
    /** `staffCaller` of one of the partner's projects (else the 404 of a missing project). */
    async projectCaller(principal: StaffActing, input: { projectId: string; environment: Environment }): Promise<Caller> {
      const project = valid(input.projectId) ? await deps.store.findProject(principal.partnerId, input.projectId) : null;
      if (!project) throw notFound('Project');
      return staffCaller(principal, project.id, input.environment);
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
