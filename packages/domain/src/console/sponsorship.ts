/**
 * The console's Sponsorship page (tRPC) and its GraphQL read: the gas sponsorship settings of a
 * project and environment with today's budget use, and the owner's changes. Reads and writes go
 * through the sponsorship use cases (`Sponsorship.get`, `Sponsorship.change`) acting as the staff
 * member, so validation, the audit row (`sponsorship.<verb>`) and the stored who and when are the
 * CLI's. Another partner's project is the 404 of a missing one.
 */
import { z } from 'zod';
import type { StaffStore } from '../ports.ts';
import { policyScopeOfCaller } from '../policies/service.ts';
import { parseInput } from '../shared/zod.ts';
import type { Sponsorship, SponsorshipState } from '../sponsorship/service.ts';
import type { SponsorshipVerb } from '../sponsorship/settings.ts';
import { requireOwner, scopeLocationInput, type ScopeConsolePrincipal } from './authorization-scopes.ts';
import type { PartnerScope } from './scope.ts';

const sponsorshipVerbs = ['enable', 'disable', 'pause', 'resume', 'limits'] as const satisfies readonly SponsorshipVerb[];

export const sponsorshipLocationInput = scopeLocationInput;
/** The amounts are checked by the sponsorship use case (positive wei as decimal strings, at most 2^256 - 1). */
export const sponsorshipChangeInput = scopeLocationInput.extend({
  verb: z.enum(sponsorshipVerbs),
  gasCapWei: z.string().max(100).optional(),
  dailyBudgetWei: z.string().max(100).optional(),
});

/** The settings and today's budget, with the email of the staff member who changed them last (null for the CLI or another partner's account). */
export interface ConsoleSponsorshipView extends SponsorshipState {
  updatedByEmail: string | null;
}

export function createConsoleSponsorship(deps: { scope: PartnerScope; sponsorship: Sponsorship; staff: Pick<StaffStore, 'listByPartner'> }) {
  const { scope, sponsorship } = deps;

  async function withEmail(principal: ScopeConsolePrincipal, state: SponsorshipState): Promise<ConsoleSponsorshipView> {
    const actor = state.updatedBy;
    if (actor?.type !== 'staff') return { ...state, updatedByEmail: null };
    const account = (await deps.staff.listByPartner(principal.partnerId)).find((s) => s.id === actor.id);
    return { ...state, updatedByEmail: account?.email ?? null };
  }

  return {
    /** Every staff role: the settings (the defaults, disabled, before the first change) and today's (UTC) budget use. */
    async get(principal: ScopeConsolePrincipal, input: z.input<typeof sponsorshipLocationInput>): Promise<ConsoleSponsorshipView> {
      const caller = await scope.projectCaller(principal, parseInput(sponsorshipLocationInput, input));
      return withEmail(principal, await sponsorship.get(caller));
    },

    /**
     * Owners only (it decides what the service spends on gas): applies the verb and the amounts
     * given, audited `sponsorship.<verb>` with the staff member; answers the page's new state.
     */
    async change(principal: ScopeConsolePrincipal, input: z.input<typeof sponsorshipChangeInput>): Promise<ConsoleSponsorshipView> {
      requireOwner(principal, 'Only owners may change gas sponsorship');
      const { verb, gasCapWei, dailyBudgetWei, ...location } = parseInput(sponsorshipChangeInput, input);
      const caller = await scope.projectCaller(principal, location);
      const limits = { ...(gasCapWei !== undefined && { gasCapWei }), ...(dailyBudgetWei !== undefined && { dailyBudgetWei }) };
      await sponsorship.change(policyScopeOfCaller(caller), verb, limits);
      return withEmail(principal, await sponsorship.get(caller));
    },
  };
}

export type ConsoleSponsorship = ReturnType<typeof createConsoleSponsorship>;
