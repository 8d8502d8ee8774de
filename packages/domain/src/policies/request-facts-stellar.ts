/**
 * Stellar request facts: the envelope is parsed with @stellar/stellar-sdk (a fee bump's inner
 * transaction; the fee source pays fees, which policies exclude) and every operation whose source
 * (its own or the transaction's) is the wallet is read:
 *
 * - `payment` and `pathPaymentStrictSend`: a leg of the asset sent (`native` or `CODE:ISSUER`);
 * - `createAccount`: a native leg of the starting balance;
 * - `pathPaymentStrictReceive` (only a maximum is signed) and `accountMerge` (the whole balance):
 *   a leg without amount, which counts toward no meter;
 * - operations that move nothing out (trustlines, options, data, sponsorship, ...) are skipped;
 *   the others (offers, claimable balances, contract calls, ...) are unknown movements.
 *
 * Payees are G... accounts (a muxed M... destination is its base account). Network: the chainId
 * form of the well-known passphrases, null for any other (a private network has no spec'd id).
 */
import { createRequire } from 'node:module';
import type { Asset, FeeBumpTransaction, Operation, Transaction } from '@stellar/stellar-sdk';
import type { SigningContext } from '../signing/pipeline.ts';
import { stellarChainIds } from '../signing/stellar.ts';
import type { RequestLeg } from './evaluation-types.ts';
import { addTotals, decoded, unknownMovement, type DecodedRequest } from './request-facts-common.ts';

type StellarSdk = typeof import('@stellar/stellar-sdk');

// Loaded synchronously on the first Stellar request, like the signer's lazy import: the SDK costs
// hundreds of milliseconds to load, which processes without Stellar wallets should not pay.
const requireSdk = createRequire(import.meta.url);
let sdk: StellarSdk | undefined;
const stellarSdk = (): StellarSdk => (sdk ??= requireSdk('@stellar/stellar-sdk') as StellarSdk);

const NEUTRAL_OPERATIONS = new Set<string>([
  'changeTrust',
  'allowTrust',
  'setTrustLineFlags',
  'setOptions',
  'manageData',
  'bumpSequence',
  'beginSponsoringFutureReserves',
  'endSponsoringFutureReserves',
  'revokeSponsorship',
  'claimClaimableBalance',
  'extendFootprintTtl',
  'restoreFootprint',
]);

/** Stroops of an SDK amount string ("12.5000000": always 7 decimals). */
function stroops(amount: string): bigint | null {
  return /^\d+\.\d{7}$/.test(amount) ? BigInt(amount.replace('.', '')) : null;
}

function assetOf(asset: Asset): string {
  return asset.isNative() ? 'native' : `${asset.getCode()}:${asset.getIssuer()}`;
}

/** The G... account of a G... or muxed M... address. */
function accountOf(address: string): string {
  return address.startsWith('M') ? stellarSdk().MuxedAccount.fromAddress(address, '0').baseAccount().accountId() : address;
}

/** The leg of one operation, undefined when it moves nothing out of the wallet. */
function legOf(op: Operation, notes: string[]): RequestLeg | undefined {
  switch (op.type) {
    case 'payment':
      return { to: accountOf(op.destination), asset: assetOf(op.asset), amount: stroops(op.amount) };
    case 'pathPaymentStrictSend':
      return { to: accountOf(op.destination), asset: assetOf(op.sendAsset), amount: stroops(op.sendAmount) };
    case 'createAccount':
      return { to: op.destination, asset: 'native', amount: stroops(op.startingBalance) };
    case 'pathPaymentStrictReceive':
      notes.push('pathPaymentStrictReceive: only a maximum is signed, amount not counted');
      return { to: accountOf(op.destination), asset: assetOf(op.sendAsset), amount: null };
    case 'accountMerge':
      notes.push('accountMerge: the whole balance moves, amount not counted');
      return { to: accountOf(op.destination), asset: 'native', amount: null };
    default:
      if (NEUTRAL_OPERATIONS.has(op.type)) return undefined;
      notes.push(`operation ${op.type} not decoded`);
      return unknownMovement();
  }
}

function parse(envelope: string, passphrase: string): Transaction | null {
  try {
    const tx: Transaction | FeeBumpTransaction = stellarSdk().TransactionBuilder.fromXDR(envelope, passphrase);
    return 'innerTransaction' in tx ? tx.innerTransaction : tx;
  } catch {
    return null;
  }
}

export function decodeStellarRequest(context: SigningContext): DecodedRequest {
  if (context.operation !== 'transaction') return decoded();
  const input = context.input as { transaction: string; networkPassphrase: string };
  const request = decoded(stellarChainIds.get(input.networkPassphrase) ?? null);
  const tx = parse(input.transaction, input.networkPassphrase);
  if (tx === null) {
    request.undecoded.push('not a decodable Stellar transaction envelope');
  } else {
    const wallet = context.wallet.address;
    const txSource = accountOf(tx.source);
    for (const op of tx.operations) {
      if ((op.source === undefined ? txSource : accountOf(op.source)) !== wallet) continue;
      const leg = legOf(op, request.undecoded);
      if (leg) request.legs.push(leg);
    }
  }
  addTotals(request, true);
  return request;
}
