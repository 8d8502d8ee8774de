/**
 * The console's setting of managed automatic retry for the transfers of a project and environment
 * (tRPC): every staff role reads it; owners change it (like gas sponsorship), audited
 * `auto_retry.change` with the staff member. Another partner's project is the 404 of a missing one.
 */
import { z } from 'zod';
import type { StaffStore } from '../ports.ts';
import { policyScopeOfCaller } from '../policies/service.ts';
import { parseInput } from '../shared/zod.ts';
import type { AutoRetrySettings, AutoRetrySettingsView } from '../transactions/auto-retry-settings.ts';
import { requireOwner, scopeLocationInput, type ScopeConsolePrincipal } from './authorization-scopes.ts';
import type { PartnerScope } from './scope.ts';

export const autoRetryLocationInput = scopeLocationInput;
/** `maxFeePerGas` (decimal wei per gas, or null for the built-in ceiling) is checked by the settings use case. */
export const autoRetryChangeInput = scopeLocationInput.extend({
  enabled: z.unknown(),
  maxFeePerGas: z.string().max(100).nullable(),
});

/** The setting with the email of the staff member who changed it last (null for another partner's account or none). */
export interface ConsoleAutoRetryView extends AutoRetrySettingsView {
  updatedByEmail: string | null;
}

export function createConsoleAutoRetry(deps: { scope: PartnerScope; settings: AutoRetrySettings; staff: Pick<StaffStore, 'listByPartner'> }) {
  const { scope, settings } = deps;

  async function withEmail(principal: ScopeConsolePrincipal, state: AutoRetrySettingsView): Promise<ConsoleAutoRetryView> {
    const actor = state.updatedBy;
    if (actor?.type !== 'staff') return { ...state, updatedByEmail: null };
    const account = (await deps.staff.listByPartner(principal.partnerId)).find((s) => s.id === actor.id);
    return { ...state, updatedByEmail: account?.email ?? null };
  }

  return {
    /** Every staff role: the stored setting, or the built-in default (on, no ceiling of its own) before the first change. */
    async get(principal: ScopeConsolePrincipal, input: z.input<typeof autoRetryLocationInput>): Promise<ConsoleAutoRetryView> {
      const caller = await scope.projectCaller(principal, parseInput(autoRetryLocationInput, input));
      return withEmail(principal, await settings.get(caller));
    },

    /** Owners only (it decides what the service may spend on replacement fees). */
    async change(principal: ScopeConsolePrincipal, input: z.input<typeof autoRetryChangeInput>): Promise<ConsoleAutoRetryView> {
      requireOwner(principal, 'Only owners may change managed automatic retry');
      const { enabled, maxFeePerGas, ...location } = parseInput(autoRetryChangeInput, input);
      const caller = await scope.projectCaller(principal, location);
      return withEmail(principal, await settings.change(policyScopeOfCaller(caller), { enabled, maxFeePerGas }));
    },
  };
}

export type ConsoleAutoRetry = ReturnType<typeof createConsoleAutoRetry>;
