import type { z } from 'zod';
import { ApiError, notFound } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { keysetPage, type KeysetPosition } from '../shared/cursor.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import { requireWriteAccess, type StaffPrincipal } from '../staff/service.ts';
import type { YieldMarket } from '../yield/markets.ts';
import { yieldOperationView, type YieldOperationRecord, type YieldOperationStatus, type YieldOperationStore, type YieldOperationView } from '../yield/operations.ts';
import type { YieldPositionService } from '../yield/position-reader.ts';
import type { YieldPosition } from '../yield/position.ts';
import { cancelRefused } from '../yield/operation-service.ts';
import { walletIdInput, yieldOperationIdInput, yieldOperationSearchInput } from './schemas.ts';
import type { PartnerPrincipal, PartnerScope } from './scope.ts';

/** Operations of a partner; newest first (createdAt desc, id desc). */
export interface PartnerYieldOperationFilter {
  partnerId: string;
  projectId?: string;
  walletId?: string;
  status?: YieldOperationStatus;
  after?: KeysetPosition;
  limit: number;
}

export interface ConsoleYieldStore {
  findOperation(partnerId: string, operationId: string): Promise<YieldOperationRecord | null>;
  listOperations(filter: PartnerYieldOperationFilter): Promise<YieldOperationRecord[]>;
}

export interface ConsoleYieldDeps {
  store: ConsoleYieldStore;
  /** The REST cancellation's store: the console cancels with the same rule. */
  operations: Pick<YieldOperationStore, 'cancel'>;
  positions: Pick<YieldPositionService, 'position'>;
  markets: () => YieldMarket[];
}

/** The REST operation body plus its project and whether the cancellation rule allows it right now. */
export type ConsoleYieldOperationView = YieldOperationView & { projectId: string; cancellable: boolean };

/** One market of the catalog and the wallet's position there (or why it could not be read). */
export interface ConsoleYieldPositionView {
  market: Pick<YieldMarket, 'id' | 'name' | 'source' | 'chainId'>;
  position: YieldPosition | null;
  error: { code: string; message: string } | null;
}

/** The store's rule (cancel): unsigned work — pending or requires_action without an unresolved step. */
const cancellable = (operation: YieldOperationRecord) =>
  (operation.status === 'pending' || operation.status === 'requires_action') &&
  !operation.steps.some((step) => step.recordStatus === 'pending' || step.recordStatus === 'submitted');

export const toConsoleYieldOperation = (operation: YieldOperationRecord): ConsoleYieldOperationView => ({
  ...yieldOperationView(operation),
  projectId: operation.projectId,
  cancellable: cancellable(operation),
});

/**
 * The console's yield use cases: a partner's operations (one, a wallet's, a project's or every
 * project's, by status), a wallet's positions per market (the REST position reader), and the
 * cancellation (owners and developers; the REST route's store rule, audited with the staff member).
 */
export function createConsoleYield(deps: ConsoleYieldDeps & { scope: PartnerScope; clock: Clock }) {
  const { store, scope } = deps;

  async function operation(principal: PartnerPrincipal, operationId: string): Promise<YieldOperationRecord> {
    const found = uuidSchema.safeParse(operationId).success ? await store.findOperation(principal.partnerId, operationId) : null;
    if (!found) throw notFound('Yield operation');
    return found;
  }

  /** The position reader scopes by the caller's project only: the wallet's own, already checked against the partner. */
  const readerOf = (wallet: WalletRecord, partnerId: string): Caller => ({
    partnerId,
    projectId: wallet.projectId,
    apiKeyId: '',
    environment: 'development',
    plan: 'scale',
    requestId: null,
  });

  return {
    async get(principal: PartnerPrincipal, input: z.input<typeof yieldOperationIdInput>): Promise<ConsoleYieldOperationView> {
      return toConsoleYieldOperation(await operation(principal, parseInput(yieldOperationIdInput, input).operationId));
    },

    /** Newest first, across the partner's projects or of one project or wallet, optionally by status. */
    async list(principal: PartnerPrincipal, input: z.input<typeof yieldOperationSearchInput>): Promise<{ data: ConsoleYieldOperationView[]; nextCursor: string | null }> {
      const parsed = parseInput(yieldOperationSearchInput, input);
      const project = parsed.projectId !== undefined ? await scope.project(principal, parsed.projectId) : undefined;
      const wallet = parsed.walletId !== undefined ? await scope.wallet(principal, parsed.walletId) : undefined;
      if (project && wallet && wallet.projectId !== project.id) throw notFound('Wallet');
      const { data, pagination } = await keysetPage(
        parsed,
        (after, limit) => store.listOperations({ partnerId: principal.partnerId, projectId: project?.id, walletId: wallet?.id, status: parsed.status, after, limit }),
        toConsoleYieldOperation,
      );
      return { data, nextCursor: pagination.cursor };
    },

    /** Every market of the catalog with the wallet's position read at one block each; none for a non-EVM wallet. */
    async positions(principal: PartnerPrincipal, input: z.input<typeof walletIdInput>): Promise<ConsoleYieldPositionView[]> {
      const wallet = await scope.wallet(principal, parseInput(walletIdInput, input).walletId);
      if (wallet.type !== 'EVM') return [];
      const caller = readerOf(wallet, principal.partnerId);
      return Promise.all(
        deps.markets().map(async ({ id, name, source, chainId }): Promise<ConsoleYieldPositionView> => {
          const market = { id, name, source, chainId };
          try {
            return { market, position: await deps.positions.position(caller, wallet.id, { marketId: id }), error: null };
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            return { market, position: null, error: { code: error.code, message: error.message } };
          }
        }),
      );
    },

    /** Cancels unsigned work as DELETE .../yield/operations/{id} does; 409 with the same messages otherwise. */
    async cancel(principal: PartnerPrincipal & Pick<StaffPrincipal, 'role' | 'staffId'>, input: z.input<typeof yieldOperationIdInput>): Promise<ConsoleYieldOperationView> {
      requireWriteAccess(principal as StaffPrincipal);
      const found = await operation(principal, parseInput(yieldOperationIdInput, input).operationId);
      const outcome = await deps.operations.cancel(found.id, deps.clock.now(), {
        projectId: found.projectId,
        apiKeyId: null,
        walletId: found.walletId,
        requestId: null,
        action: 'yield_operation.cancel',
        details: { operationId: found.id, marketId: found.marketId, action: found.action, amount: found.amount, previousStatus: found.status, actor: { staffId: principal.staffId } },
      });
      if (outcome.outcome === 'refused') throw cancelRefused(outcome);
      return toConsoleYieldOperation(outcome.operation);
    },
  };
}

export type ConsoleYield = ReturnType<typeof createConsoleYield>;
