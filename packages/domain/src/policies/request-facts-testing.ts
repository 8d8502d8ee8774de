import { randomUUID } from 'node:crypto';
import type { WalletRecord } from '../ports.ts';
import { parseSigningInput, type SigningContext } from '../signing/pipeline.ts';
import { signRouteNames, type SignOperationName } from '../signing/signers.ts';
import type { WalletType } from '../wallets/addresses.ts';

/** Test helper: the context the pipeline hands to policies, with the body parsed by the operation's schema (as the routes do). */
export function signingContext(
  type: WalletType,
  address: string,
  operation: SignOperationName,
  body: unknown,
  options: { action?: string; network?: string | null } = {},
): SigningContext {
  const now = new Date();
  const wallet: WalletRecord = {
    id: randomUUID(),
    projectId: randomUUID(),
    type,
    scheme: type === 'EVM' || type === 'COSMOS' ? 'DKLS' : 'ED25519',
    address,
    publicKey: '',
    status: 'ready',
    userIdentifier: 'user@example.com',
    userIdentifierType: 'EMAIL',
    cosmosPrefix: type === 'COSMOS' ? 'cosmos' : null,
    custody: 'api_key',
    custodyMode: 'isolated',
    claimedAt: null,
    claimedByUserId: null,
    migratedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return {
    caller: { partnerId: randomUUID(), projectId: wallet.projectId, apiKeyId: randomUUID(), environment: 'development', plan: 'free', requestId: null },
    wallet,
    operation,
    action: options.action ?? `wallet.sign.${signRouteNames[operation]}`,
    chain: { walletType: type, chainId: null, network: options.network ?? null },
    transfer: null,
    input: parseSigningInput(type, operation, body),
  };
}
