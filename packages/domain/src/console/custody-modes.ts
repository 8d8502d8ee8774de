/**
 * The console's view of a project's custody modes: for each environment, how its new EVM and
 * COSMOS wallets will hold their keys (set by operators with `npm run custody -- mode`; read-only
 * here), with the review label when it is the threshold mode.
 */
import type { z } from 'zod';
import { environments } from '../api-keys/plans.ts';
import type { CustodyModeService, CustodyModeView } from '../custody/custody-mode.ts';
import { parseInput } from '../shared/zod.ts';
import { projectIdInput } from './schemas.ts';
import type { PartnerPrincipal, PartnerScope } from './scope.ts';

export function createConsoleCustodyModes({ scope, custodyMode }: { scope: PartnerScope; custodyMode: Pick<CustodyModeService, 'get'> }) {
  return {
    /** One view per environment, development first; another partner's project is NOT_FOUND. */
    async ofProject(principal: PartnerPrincipal, input: z.input<typeof projectIdInput>): Promise<CustodyModeView[]> {
      const { projectId } = parseInput(projectIdInput, input);
      const project = await scope.project(principal, projectId);
      return Promise.all(environments.map((environment) => custodyMode.get({ projectId: project.id, environment })));
    },
  };
}

export type ConsoleCustodyModes = ReturnType<typeof createConsoleCustodyModes>;
