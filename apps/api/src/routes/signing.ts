import { z } from 'zod';
import { errorBodies, signers, withApprovalRequest, type SignOperationName, type SigningService } from '@wallet/domain';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { broadcastResponses, signingRefusals } from './transactions.ts';

const operations: { name: SignOperationName; path: string; operationId: string; summary: string }[] = [
  { name: 'message', path: 'sign-message', operationId: 'signMessage', summary: 'Sign a message (EIP-191 on EVM, raw UTF-8 bytes elsewhere, PersonalMessage on Sui)' },
  { name: 'raw', path: 'sign-raw', operationId: 'signRaw', summary: 'Sign exact bytes given as hex' },
  { name: 'transaction', path: 'sign-transaction', operationId: 'signTransaction', summary: 'Sign a transaction (EVM, Solana, Stellar, Sui)' },
  { name: 'typedData', path: 'sign-typed-data', operationId: 'signTypedData', summary: 'Sign EIP-712 typed data (EVM)' },
  { name: 'authorization', path: 'sign-authorization', operationId: 'signAuthorization', summary: 'Sign an EIP-7702 authorization (EVM)' },
];

/** The body the docs show: the bodies of every wallet type that supports the operation. */
function documentedBody(name: SignOperationName): z.ZodType {
  const bodies = [...new Set(Object.values(signers).flatMap((signer) => (signer[name] ? [signer[name].body] : [])))];
  return bodies.length === 1 ? bodies[0]! : z.union(bodies as [z.ZodType, z.ZodType, ...z.ZodType[]]);
}

export function signingRoutes(signing: SigningService): RouteDef[] {
  return defineRoutes(
    operations.map((operation) => ({
      method: 'post' as const,
      path: `/v1/wallets/{walletId}/${operation.path}`,
      operationId: operation.operationId,
      summary: operation.summary,
      tag: 'Signing',
      body: documentedBody(operation.name),
      responses: {
        200: { description: 'The signature (shape by wallet type, see docs/signing.md)', schema: z.record(z.string(), z.unknown()) },
        403: signingRefusals,
        409: {
          description: 'WALLET_ALREADY_CLAIMED, WALLET_NOT_MIGRATED for a client-held wallet, WALLET_NOT_READY, or CONFLICT: the Idempotency-Key of an approval case with another request',
          errors: [errorBodies.walletAlreadyClaimed, errorBodies.walletNotMigrated, errorBodies.walletNotReady],
        },
        // sign-transaction with broadcast: true (EVM, Solana) broadcasts what it signed.
        ...(operation.name === 'transaction' ? (broadcastResponses as RouteDef['responses']) : {}),
      },
      handler: async ({ caller, params, body, req }) => {
        const request = withApprovalRequest(caller, req.method, `${req.baseUrl}${req.path}`, body);
        return { status: 200, ...(await signing.sign(request.caller, params.walletId ?? '', operation.name, request.body)) };
      },
    })),
  );
}
