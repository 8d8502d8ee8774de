/**
 * `npm run custody -- convert [--wallet-id W | --project-id P [--env ENV]] [--mode threshold]`, its
 * arguments checked where the work runs (this process, or the running service the CLI asks):
 *
 * - no scope: every Ed25519 wallet still in XOR halves to FROST (the upgrade conversion);
 * - `--wallet-id W --mode threshold`: that wallet to threshold custody (DKLs23 for EVM and COSMOS,
 *   FROST for Ed25519), keeping its address; prints the wallet's outcome;
 * - `--project-id P --mode threshold`: every API-custody wallet of the project. Wallets belong to a
 *   project, not to an environment: `--env`, when given, is checked as `mode` checks it and echoed.
 */
import { invalidRequest, type MaintenanceCounts, type PolicyScope, type WalletConversion } from '@wallet/domain';
import { z } from 'zod';
import type { KeyMaintenance } from './key-maintenance.ts';

export type ProjectConversion = MaintenanceCounts & { projectId: string; environment?: string; mode: 'threshold' };

export async function runConvertCommand(
  maintenance: KeyMaintenance,
  args: Record<string, unknown>,
  operatorScope: (projectId: string, environment: unknown) => Promise<PolicyScope>,
): Promise<MaintenanceCounts | WalletConversion | ProjectConversion> {
  const { walletId, projectId, environment, mode } = args;
  if (walletId === undefined && projectId === undefined) {
    if (mode !== undefined || environment !== undefined) throw invalidRequest('convert --mode needs --wallet-id W or --project-id P');
    return maintenance.convert();
  }
  if (walletId !== undefined && projectId !== undefined) throw invalidRequest('convert takes --wallet-id or --project-id, not both');
  if (mode !== 'threshold') {
    throw invalidRequest('convert --mode must be threshold: a conversion moves a wallet from isolated to threshold custody once and is not undone', { mode: mode ?? null });
  }
  if (walletId !== undefined) {
    if (environment !== undefined) throw invalidRequest('--env goes with --project-id');
    if (typeof walletId !== 'string' || !z.uuid().safeParse(walletId).success) throw invalidRequest('--wallet-id must be a wallet id (a UUID)');
    return maintenance.convertWallet(walletId);
  }
  if (typeof projectId !== 'string' || !z.uuid().safeParse(projectId).success) throw invalidRequest('--project-id must be a project id (a UUID)');
  // The project must exist (404 otherwise); an environment given must be one.
  const scope = await operatorScope(projectId, environment ?? 'development');
  const counts = await maintenance.convertProject(scope.projectId);
  return { ...counts, projectId: scope.projectId, ...(environment !== undefined ? { environment: scope.environment } : {}), mode: 'threshold' };
}
