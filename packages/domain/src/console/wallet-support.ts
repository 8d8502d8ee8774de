/**
 * The console's wallet page beyond the wallet itself: the policies whose selector takes it. (Its
 * balances come from the balances use case, tRPC `balances.get`.)
 */
import type { z } from 'zod';
import { environments } from '../api-keys/plans.ts';
import { selectorTakesWallet } from '../policies/evaluate.ts';
import type { PolicyStore } from '../policies/ports.ts';
import { toPolicyView, type PolicyView } from '../policies/service.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import { walletIdInput } from './schemas.ts';
import type { PartnerPrincipal, PartnerScope } from './scope.ts';

export interface ConsoleWalletSupportDeps {
  scope: PartnerScope;
  policies: Pick<PolicyStore, 'listActive'>;
  clock: Clock;
}

export function createConsoleWalletSupport(deps: ConsoleWalletSupportDeps) {
  return {
    /** The active policies in effect now, in both environments of the wallet's project, whose selector takes the wallet. */
    async policies(principal: PartnerPrincipal, input: z.input<typeof walletIdInput>): Promise<PolicyView[]> {
      const wallet = await deps.scope.wallet(principal, parseInput(walletIdInput, input).walletId);
      const now = deps.clock.now();
      const perEnvironment = await Promise.all(
        environments.map(async (environment) =>
          (await deps.policies.listActive({ projectId: wallet.projectId, environment }, now, wallet.type))
            .filter((p) => selectorTakesWallet(p, wallet))
            .map(toPolicyView),
        ),
      );
      return perEnvironment.flat();
    },
  };
}

export type ConsoleWalletSupport = ReturnType<typeof createConsoleWalletSupport>;
