/**
 * The operator's choice of custody mode for a project's new secp256k1 (EVM, COSMOS) wallets, per
 * environment: `isolated` (the default: the key is joined only inside the signer process, for each
 * signature) or `threshold` (DKLs23: the API and the signer each hold a share and sign 2-of-2, an
 * offline recovery share exists; the key never exists whole). Existing wallets keep their mode.
 */
import { z } from 'zod';
import type { CustodySettingsStore } from '../ports.ts';
import { parseInput } from '../shared/zod.ts';
import type { CustodyMode } from './types.ts';

/** Said wherever the threshold mode is chosen or shown. */
export const THRESHOLD_ECDSA_REVIEW = 'DKLs23 threshold ECDSA: implemented from the paper, not externally audited';

const modeSchema = z.enum(['isolated', 'threshold']);

export interface CustodyModeView {
  projectId: string;
  environment: string;
  secp256k1Mode: CustodyMode;
  review: string | null;
}

export function createCustodyModeService({ settings }: { settings: CustodySettingsStore }) {
  const view = (projectId: string, environment: string, mode: CustodyMode): CustodyModeView => ({
    projectId,
    environment,
    secp256k1Mode: mode,
    review: mode === 'threshold' ? THRESHOLD_ECDSA_REVIEW : null,
  });
  return {
    async get(scope: { projectId: string; environment: string }): Promise<CustodyModeView> {
      return view(scope.projectId, scope.environment, await settings.secp256k1Mode(scope.projectId, scope.environment));
    },
    async set(scope: { projectId: string; environment: string }, mode: unknown): Promise<CustodyModeView> {
      const parsed = parseInput(modeSchema, mode);
      await settings.setSecp256k1Mode(scope.projectId, scope.environment, parsed);
      return view(scope.projectId, scope.environment, parsed);
    },
  };
}

export type CustodyModeService = ReturnType<typeof createCustodyModeService>;
