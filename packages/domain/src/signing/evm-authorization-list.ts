/**
 * The `authorizationList` of an EIP-7702 (type 4) transaction: signed authorizations, each as the
 * `authorization` operation answers it. The service builds type 4 transactions itself (a wallet's
 * first batch of calls carries its own delegation, calls/); the sign-transaction route refuses them,
 * so a partner delegates a wallet only through sign-authorization, which policies judge as such.
 */
import { getAddress, type Hex, type SignedAuthorizationList } from 'viem';
import { z } from 'zod';

const word = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, 'must be 0x-prefixed hex of at most 32 bytes');

export const signedAuthorizationSchema = z.strictObject({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address').describe('the contract the authority delegates to'),
  chainId: z.number().int().positive().describe('never 0 (an authorization valid on every chain)'),
  nonce: z.number().int().min(0),
  r: word,
  s: word,
  yParity: z.literal([0, 1]),
});

/** At most a few: the service carries one (the wallet's own). */
export const authorizationListSchema = z.array(signedAuthorizationSchema).min(1).max(4);

export type SignedAuthorizationInput = z.output<typeof signedAuthorizationSchema>;

/** The rule between `type` and `authorizationList`: required for type 4, not allowed otherwise. */
export function checkAuthorizationList(tx: { type: number; authorizationList?: unknown[] }, ctx: z.core.$RefinementCtx): void {
  if (tx.type === 4 && tx.authorizationList === undefined) {
    ctx.addIssue({ code: 'custom', path: ['authorizationList'], message: 'required for type 4 (EIP-7702) transactions' });
  }
  if (tx.type !== 4 && tx.authorizationList !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['authorizationList'], message: 'only for type 4 (EIP-7702) transactions' });
  }
}

/** The viem form of a validated list. */
export function viemAuthorizationList(list: SignedAuthorizationInput[]): SignedAuthorizationList {
  return list.map((a) => ({ address: getAddress(a.address), chainId: a.chainId, nonce: a.nonce, r: a.r as Hex, s: a.s as Hex, yParity: a.yParity }));
}
