/**
 * Request facts: what a signing intent is, for policies (contract: evaluation-types.ts). Decoded
 * once per signature, synchronously, with the chains' own libraries; one file per wallet type.
 *
 * - `action` comes from the operation and, for transactions, the audit action (`actionOf`).
 * - `facts` holds every fact decoded, also those the action's catalog entry does not list (an
 *   EVM sign-transaction that is an `approve` carries `request.spender`): rules naming actions
 *   can read only catalog facts (document validation), rules on `all` may meet the others.
 * - Totals: `request.value.baseUnits` is the decoded native total of the request (EVM: the
 *   transaction's value, always present; Solana, Stellar, Sui: "0" without a native leg; Cosmos:
 *   absent, see request-facts-cosmos.ts); `request.token.value.baseUnits` is present only when
 *   exactly one token asset is moved, so rules on it fail closed on mixed or unknown assets.
 */
import type { SigningContext } from '../signing/pipeline.ts';
import type { SignOperationName } from '../signing/signers.ts';
import type { RequestFacts } from './evaluation-types.ts';
import type { PolicyActionName, PolicyWalletType } from './facts.ts';
import { decodeCosmosRequest } from './request-facts-cosmos.ts';
import { decodeEvmRequest } from './request-facts-evm.ts';
import { decodeSolanaRequest } from './request-facts-solana.ts';
import { decodeStellarRequest } from './request-facts-stellar.ts';
import { decodeSuiRequest } from './request-facts-sui.ts';
import type { RequestDecoder } from './request-facts-common.ts';
import { YIELD_SIGNING_ACTIONS } from '../yield/calls.ts';

/** Transactions the service builds itself, by audit action; every other transaction is `sign_transaction` (also `broadcast: true`). */
const transactionActions: Readonly<Record<string, PolicyActionName>> = {
  'wallet.sign.transfer': 'transfer',
  'wallet.sign.cancel': 'cancel_transaction',
  // Yield steps: approve, supply, vaultBundlesV1Deposit, withdraw, redeem.
  ...Object.fromEntries(Object.entries(YIELD_SIGNING_ACTIONS).map(([action, audit]) => [audit, action as PolicyActionName])),
};

/** The policy action of a signature (spec: sign-message on a non-EVM wallet is a raw signature). */
export function actionOf(walletType: PolicyWalletType, operation: SignOperationName, auditAction: string): PolicyActionName {
  switch (operation) {
    case 'raw':
      return 'raw_signature';
    case 'message':
      return walletType === 'EVM' ? 'sign_message' : 'raw_signature';
    case 'typedData':
      return 'sign_typed_data';
    case 'authorization':
      return 'sign_authorization';
    case 'transaction':
      return Object.hasOwn(transactionActions, auditAction) ? transactionActions[auditAction]! : 'sign_transaction';
  }
}

const decoders: Record<PolicyWalletType, RequestDecoder> = {
  EVM: decodeEvmRequest,
  SOLANA: decodeSolanaRequest,
  STELLAR: decodeStellarRequest,
  SUI: decodeSuiRequest,
  COSMOS: decodeCosmosRequest,
};

/**
 * The facts of a signing intent. Throws only 400 INVALID_REQUEST for a `network` that the
 * transaction contradicts (spec rule 5); bytes it cannot read give facts with `undecoded` set
 * (the signer then refuses them).
 */
export function requestFactsOf(signed: SigningContext): RequestFacts {
  // A raw signature whose call is known is judged as that call (pipeline.ts, `executes`).
  const context: SigningContext = signed.executes ? { ...signed, operation: 'transaction', input: { transaction: signed.executes } } : signed;
  const walletType = context.wallet.type;
  const action = actionOf(walletType, context.operation, context.action);
  const request = decoders[walletType](context, action);
  request.facts['wallet.id'] = context.wallet.id;
  if (request.network !== null) request.facts['request.chainId'] = request.network;
  return {
    walletType,
    walletId: context.wallet.id,
    apiKeyId: context.caller.apiKeyId,
    action,
    network: request.network,
    facts: request.facts,
    legs: request.legs,
    undecoded: request.undecoded.length === 0 ? null : request.undecoded.join('; '),
  };
}
