/**
 * The console's view of a stranded wallet (transactions/nonce-gaps.ts) and its repair by staff: the
 * wallet's stranded chains now, and the gap fillers an owner or developer sends at once instead of
 * waiting for the nonce-gap worker. The wallet is looked up in the staff member's partner first, so
 * another partner's wallet is the 404 of a missing one; the repair is audited with the staff member.
 */
import type { z } from 'zod';
import type { AuditStore } from '../ports.ts';
import { parseInput } from '../shared/zod.ts';
import { requireWriteAccess, type StaffPrincipal } from '../staff/service.ts';
import type { NonceGapRepair, StrandedWallet } from '../transactions/nonce-gaps.ts';
import { walletIdInput } from './schemas.ts';
import type { PartnerPrincipal, PartnerScope, StaffActing } from './scope.ts';

/** One chain a wallet is stranded on: the nonces nothing holds and how many transactions wait behind them. */
export interface StrandedChainView {
  chainId: string;
  /** The chain's nonce: the next one it will mine. */
  chainNonce: number;
  /** The lowest nonce of the wallet's waiting (`pending`, `submitted`) records on the chain. */
  lowestUnresolved: number;
  /** The nonces in [chainNonce, lowestUnresolved) that nothing holds. */
  missing: number[];
  /** How many of the wallet's records wait on the chain. */
  waiting: number;
}

export interface GapFillerView {
  chainId: string;
  nonce: number;
  transactionId: string;
  hash: string;
}

export interface NonceGapFillView {
  walletId: string;
  /** What was stranded when the repair looked (before its fillers). */
  stranded: StrandedChainView[];
  /** The fillers sent now; empty when another process (or the worker) filled the gap first. */
  filled: GapFillerView[];
}

const strandedChainView = (s: StrandedWallet): StrandedChainView => ({
  chainId: s.chainId,
  chainNonce: s.chainNonce,
  lowestUnresolved: s.lowestUnresolved,
  missing: s.missing,
  waiting: s.waiting,
});

export function createConsoleNonceGaps(deps: { scope: PartnerScope; repair: Pick<NonceGapRepair, 'findStranded' | 'repairWallet'>; audit: AuditStore }) {
  const { scope, repair } = deps;
  return {
    /** The chains the wallet is stranded on now, whatever the age of its waiting records; none for a non-EVM wallet. */
    async nonceGaps(principal: PartnerPrincipal, input: z.input<typeof walletIdInput>): Promise<StrandedChainView[]> {
      const wallet = await scope.wallet(principal, parseInput(walletIdInput, input).walletId);
      if (wallet.type !== 'EVM') return [];
      return (await repair.findStranded({ walletId: wallet.id })).map(strandedChainView);
    },

    /** Owners and developers: a gap filler at every missing nonce of the wallet now (the operator's `nonces repair`), audited `wallet.nonce_gap.fill`. */
    async fillNonceGaps(principal: StaffActing & Pick<StaffPrincipal, 'role'>, input: z.input<typeof walletIdInput>): Promise<NonceGapFillView> {
      requireWriteAccess(principal as StaffPrincipal);
      const wallet = await scope.wallet(principal, parseInput(walletIdInput, input).walletId);
      if (wallet.type !== 'EVM') return { walletId: wallet.id, stranded: [], filled: [] };
      const outcome = await repair.repairWallet(wallet.id);
      const filled = outcome.filled.map(({ chainId, nonce, transactionId, hash }) => ({ chainId, nonce, transactionId, hash }));
      // Only a repair that sent something changed anything worth an audit row.
      if (filled.length > 0) {
        await deps.audit.append({
          projectId: wallet.projectId,
          apiKeyId: null,
          walletId: wallet.id,
          requestId: principal.requestId ?? null,
          action: 'wallet.nonce_gap.fill',
          details: { filled, actor: { staffId: principal.staffId } },
        });
      }
      return { walletId: wallet.id, stranded: outcome.stranded.map(strandedChainView), filled };
    },
  };
}

export type ConsoleNonceGaps = ReturnType<typeof createConsoleNonceGaps>;
