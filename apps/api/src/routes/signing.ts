import { z } from 'zod';
import { errorBodies, signers, signResponses, withApprovalRequest, type SignOperationName, type SigningService } from '@wallet/domain';
import { defineRoutes, type RouteDef, type RouteExamples } from '../http/route.ts';
import { broadcastResponses, signerUnavailableResponse, signingRefusals } from './transactions.ts';
import { signingExamples } from './signing-examples.ts';

/** What every signing route adds to its description: the policy check before the key is used. */
const policyChecked =
  "Checked against the project's policies before anything is signed: a denial is 403 `POLICY_DENIED` (`deniedBy` says why) and signs nothing; a rule that requires approval is 403 `POLICY_REVIEW_REQUIRED`, after which the identical body resent with the same `Idempotency-Key` signs once the approval is complete. Every signature writes an audit row.";

const operations: { name: SignOperationName; path: string; operationId: string; examples: RouteExamples; summary: string; description: string }[] = [
  {
    name: 'message',
    path: 'sign-message',
    operationId: 'signMessage',
    examples: signingExamples.signMessage,
    summary: 'Sign a message (EIP-191 on EVM, raw UTF-8 bytes elsewhere, PersonalMessage on Sui)',
    description:
      "Signs `message` with the wallet's key: EIP-191 on EVM, SHA-256 then secp256k1 on COSMOS, Ed25519 over the UTF-8 bytes on SOLANA and STELLAR, a PersonalMessage intent on SUI.",
  },
  {
    name: 'raw',
    path: 'sign-raw',
    operationId: 'signRaw',
    examples: signingExamples.signRaw,
    summary: 'Sign exact bytes given as hex',
    description:
      "Signs the bytes of `data` (hex) with no prefix: exactly 32 bytes, unhashed, on EVM; their SHA-256 on COSMOS (e.g. a SignDoc's sign bytes); Ed25519 over them on SOLANA, STELLAR and SUI.",
  },
  {
    name: 'transaction',
    path: 'sign-transaction',
    operationId: 'signTransaction',
    examples: signingExamples.signTransaction,
    summary: 'Sign a transaction (EVM, Solana, Stellar, Sui)',
    description:
      "Signs a transaction in the wallet type's form: EVM fields (type 0 or 2), a base64 Solana transaction (legacy or v0), a Stellar XDR envelope with its network passphrase, or Sui BCS TransactionData; COSMOS is 400 (use sign-raw). With `broadcast: true` (EVM, Solana) it also records and sends the transaction and answers like a transfer.",
  },
  {
    name: 'typedData',
    path: 'sign-typed-data',
    operationId: 'signTypedData',
    examples: signingExamples.signTypedData,
    summary: 'Sign EIP-712 typed data (EVM)',
    description:
      'Signs EIP-712 typed data (`domain`, `types`, `primaryType`, `message`) on an EVM wallet. `EIP712Domain` is derived (sending it is 400), and values are checked against their declared types before hashing.',
  },
  {
    name: 'authorization',
    path: 'sign-authorization',
    operationId: 'signAuthorization',
    examples: signingExamples.signAuthorization,
    summary: 'Sign an EIP-7702 authorization (EVM)',
    description:
      'Signs an EIP-7702 authorization (`address` or `contractAddress`, `chainId`, `nonce`) on an EVM wallet and returns it with `r`, `s`, `yParity` and `signature`.',
  },
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
      examples: operation.examples,
      summary: operation.summary,
      description: `${operation.description} ${policyChecked}`,
      tag: 'Signing',
      body: documentedBody(operation.name),
      responses: {
        200: { description: 'The signature (shape by wallet type, see docs/signing.md)', schema: signResponses[operation.name] },
        403: signingRefusals,
        409: {
          description: 'WALLET_ALREADY_CLAIMED, WALLET_NOT_MIGRATED for a client-held wallet, WALLET_NOT_READY, or CONFLICT: the Idempotency-Key of an approval case with another request',
          errors: [errorBodies.walletAlreadyClaimed, errorBodies.walletNotMigrated, errorBodies.walletNotReady],
        },
        503: signerUnavailableResponse,
        // sign-transaction with broadcast: true (EVM, Solana) broadcasts what it signed (its 503 names both causes).
        ...(operation.name === 'transaction' ? (broadcastResponses as RouteDef['responses']) : {}),
      },
      handler: async ({ caller, params, body, req }) => {
        const request = withApprovalRequest(caller, req.method, `${req.baseUrl}${req.path}`, body);
        return { status: 200, ...(await signing.sign(request.caller, params.walletId ?? '', operation.name, request.body)) };
      },
    })),
  );
}
