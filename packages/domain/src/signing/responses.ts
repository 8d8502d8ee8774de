/**
 * The 200 bodies of the five sign routes, per operation, as every chain's signer answers them
 * (evm.ts, solana.ts, cosmos.ts, stellar.ts, sui.ts) and as `broadcast: true` answers
 * sign-transaction (transactions/broadcast.ts). The OpenAPI document shows these.
 */
import { z } from 'zod';
import type { SignOperationName } from './signers.ts';

const signature = z
  .string()
  .describe('EVM: 65 bytes r‖s‖v as hex without 0x; Solana, Stellar, Cosmos and Sui sign-raw: hex; Sui sign-message and sign-transaction: the serialized signature, base64 (docs/signing.md)');

export const signatureResponse = z.object({ signature }).meta({ id: 'SignatureResponse' });

export const signedTransactionResponse = z
  .object({
    signedTransaction: z.string().describe('EVM: the RLP-encoded signed transaction (0x hex); Solana: the signed transaction (base64); Stellar: the signed envelope (base64 XDR)'),
    txHash: z.string().optional().describe('With `broadcast: true`: the broadcast transaction hash (Solana: the signature)'),
    transactionId: z.uuid().optional().describe('With `broadcast: true`: the transaction record to follow (also in `x-transaction-id`)'),
  })
  .meta({ id: 'SignedTransactionResponse' });

export const suiSignedTransactionResponse = z
  .object({ signature, transaction: z.string().describe('The transaction bytes that were signed (base64), as sent') })
  .meta({ id: 'SuiSignedTransactionResponse' });

export const authorizationResponse = z
  .object({
    address: z.string().describe('The delegate contract, checksummed'),
    chainId: z.number().int().describe('0 makes the authorization valid on every chain'),
    nonce: z.number().int(),
    r: z.string(),
    s: z.string(),
    yParity: z.number().int().min(0).max(1),
    signature,
  })
  .meta({ id: 'SignedAuthorizationResponse' });

/** The 200 body schema of each sign operation. */
export const signResponses: Record<SignOperationName, z.ZodType> = {
  message: signatureResponse,
  raw: signatureResponse,
  typedData: signatureResponse,
  transaction: z.union([signedTransactionResponse, suiSignedTransactionResponse, signatureResponse]),
  authorization: authorizationResponse,
};
