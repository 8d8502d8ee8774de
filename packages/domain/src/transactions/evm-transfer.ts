import { encodeFunctionData, formatUnits, keccak256, type Hex } from 'viem';
import type { EncryptedShare } from '../custody/types.ts';
import { ERC20_TRANSFER_ABI } from '../shared/erc20-transfer-abi.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { fieldError } from '../shared/zod.ts';
import { NO_RECORD_FIELDS, type Broadcaster, type SignedBroadcast } from './broadcast.ts';
import type { SigningContext } from '../signing/pipeline.ts';
import { assertNoNonceHold, beforeRecord, DEFAULT_NONCE_RESERVATION_MS, rpcUnavailable, transactionIntent, transferContext, TRANSFER_ACTION, type BroadcastResult, type ChainTargets, type TransactionServiceDeps } from './context.ts';
import { frozenPreparationOf, reviewIdOf, type FrozenEvmPreparation } from './frozen-preparation.ts';
import { ChainUnavailableError, type EvmGateway } from './gateways.ts';
import { DEFAULT_CEILING_MULTIPLIER } from './attempts.ts';
import { decideAutoRetry } from './auto-retry-policy.ts';
import { RETRY_PINS, transferKind, type TransferInput } from './schemas.ts';

const GAS_BUFFER_PERCENT = 120n;
export const NATIVE_TRANSFER_GAS = 21_000n;
const TYPICAL_TOKEN_TRANSFER_GAS = 65_000n;

/** The call a transfer body makes; the body passed `transferBodyFor('EVM', ...)`. */
function evmCall(wallet: WalletRecord, input: TransferInput) {
  const kind = transferKind('EVM', input);
  const type = input.type ?? 2;
  const value = BigInt(input.value);
  const from = wallet.address as Hex;
  const call =
    kind === 'NATIVE'
      ? { from, to: input.to as Hex, value, data: undefined }
      : {
          from,
          to: input.tokenAddress as Hex,
          value: 0n,
          data: encodeFunctionData({ abi: ERC20_TRANSFER_ABI, functionName: 'transfer', args: [input.to as Hex, value] }),
        };
  return { kind, type, value, call };
}

/** The fee fields of the transaction type: the body's overrides, the rest from the node's suggestion. */
async function evmFees(gateway: EvmGateway, input: TransferInput, type: 0 | 2) {
  const needSuggestion = type === 2 ? input.maxFeePerGas === undefined || input.maxPriorityFeePerGas === undefined : input.gasPrice === undefined;
  const suggestion = needSuggestion ? await beforeRecord(gateway.getFeeSuggestion()) : undefined;
  if (type === 0) return { gasPrice: input.gasPrice ?? suggestion!.gasPrice.toString() };
  const maxFeePerGas = input.maxFeePerGas ?? suggestion!.maxFeePerGas.toString();
  let maxPriorityFeePerGas = input.maxPriorityFeePerGas ?? suggestion!.maxPriorityFeePerGas.toString();
  if (BigInt(maxPriorityFeePerGas) > BigInt(maxFeePerGas)) {
    // Both given is a schema rule; here the ceiling is the node's suggestion.
    if (input.maxPriorityFeePerGas !== undefined) throw fieldError('maxPriorityFeePerGas', 'must not exceed maxFeePerGas');
    maxPriorityFeePerGas = maxFeePerGas;
  }
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/**
 * Managed automatic retry (attempts.ts): never for a type 0 transfer or one that pins its nonce or
 * fees; otherwise the body's `autoRetry`, else the project's default, else on with a ceiling of 10
 * times the first maxFeePerGas (`decideAutoRetry`).
 */
async function autoRetryOf(deps: TransactionServiceDeps, caller: Caller, input: TransferInput, type: 0 | 2, fees: { maxFeePerGas?: string }) {
  const eligible = type === 2 && !RETRY_PINS.some((field) => input[field] !== undefined);
  if (!eligible) return { autoRetry: false, autoRetryMaxFeePerGas: null };
  const project = (await deps.autoRetryDefault?.(caller)) ?? null;
  const decision = decideAutoRetry(input.autoRetry, project, { enabled: true, ceiling: (BigInt(fees.maxFeePerGas!) * DEFAULT_CEILING_MULTIPLIER).toString() });
  return { autoRetry: decision.enabled, autoRetryMaxFeePerGas: decision.ceiling };
}

/** The fee fields a frozen preparation holds, for its transaction type. */
function frozenFees(frozen: FrozenEvmPreparation) {
  return frozen.type === 0 ? { gasPrice: frozen.gasPrice! } : { maxFeePerGas: frozen.maxFeePerGas!, maxPriorityFeePerGas: frozen.maxPriorityFeePerGas! };
}

/** EVM transfers (native and ERC-20) and their fee estimates. */
export function createEvmTransfers(deps: TransactionServiceDeps, targets: ChainTargets, broadcast: Broadcaster) {
  const { store, pipeline } = deps;
  const nonceReservationMs = deps.nonceReservationMs ?? DEFAULT_NONCE_RESERVATION_MS;

  return {
    async transfer(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], input: TransferInput): Promise<BroadcastResult> {
      const target = targets.evm(input.chainId);
      const frozen = await frozenPreparationOf(deps.frozenPreparations, caller);
      await assertNoNonceHold(deps, wallet.id, Number(target.chainId), frozen?.caseId);
      const { type, call } = evmCall(wallet, input);
      const gasLimit = frozen ? BigInt(frozen.prepared.gasLimit) : (input.gasLimit ?? ((await beforeRecord(target.gateway.estimateGas(call))) * GAS_BUFFER_PERCENT) / 100n);
      const fees = frozen ? frozenFees(frozen.prepared) : await evmFees(target.gateway, input, type);
      const autoRetry = await autoRetryOf(deps, caller, input, type, fees);
      // The nonce a case holds is the case's until it ends; a nonce the body names is the partner's.
      const heldNonce = input.nonce === undefined ? (frozen?.nonce ?? null) : null;
      const reservation =
        heldNonce === null && input.nonce === undefined
          ? await store.allocateNonce(wallet.id, target.chainId, await beforeRecord(target.gateway.getPendingNonce(wallet.address as Hex)), nonceReservationMs)
          : null;
      deps.crashAt?.('nonce-allocated');
      const nonce = heldNonce ?? input.nonce ?? reservation!.nonce;
      let signed: SignedBroadcast;
      try {
        const intent = transactionIntent(
          { caller, wallet, shares, action: TRANSFER_ACTION, target, transfer: { to: input.to, value: input.value, tokenAddress: input.tokenAddress ?? null } },
          {
            transaction: {
              to: call.to,
              value: call.value.toString(),
              ...(call.data ? { data: call.data } : {}),
              chainId: Number(target.chainId),
              type,
              nonce,
              gasLimit: gasLimit.toString(),
              ...fees,
            },
          },
        );
        signed = await broadcast.recordSigned(pipeline, intent, (signedTransaction) => ({
          caller,
          wallet,
          intentKind: 'transfer',
          target,
          hash: keccak256(signedTransaction as Hex),
          fields: { ...NO_RECORD_FIELDS, to: input.to, value: input.value, tokenAddress: input.tokenAddress ?? null, nonce, ...autoRetry },
          reservation,
        }));
      } catch (error) {
        const reviewId = heldNonce === null ? reviewIdOf(error) : null;
        // A case this refusal opens keeps the gas, the fees and the reserved nonce (the first preparation written stays).
        if (reviewId !== null && deps.frozenPreparations !== undefined) {
          const hold = reservation && { walletId: wallet.id, chainId: Number(target.chainId), nonce, reservationId: reservation.reservationId };
          await deps.frozenPreparations.freeze(reviewId, { type, gasLimit: gasLimit.toString(), ...fees }, deps.clock.now(), hold);
        }
        // Free again unless the case took it (or the record did: then the reservation no longer holds it).
        if (reservation) await store.releaseNonce(wallet.id, target.chainId, nonce, reservation.reservationId);
        throw error;
      }
      return broadcast.sendSigned(signed);
    },

    /**
     * The intent a transfer would sign, for dry runs: the same call, with placeholder nonce, gas
     * and fees (policies do not read them) and without touching the chain.
     */
    preview(caller: Caller, wallet: WalletRecord, input: TransferInput): SigningContext {
      const target = targets.evm(input.chainId);
      const { type, call } = evmCall(wallet, input);
      const fees = type === 0 ? { gasPrice: '1' } : { maxFeePerGas: '1', maxPriorityFeePerGas: '1' };
      const body = {
        transaction: { to: call.to, value: call.value.toString(), ...(call.data ? { data: call.data } : {}), chainId: Number(target.chainId), type, nonce: input.nonce ?? 0, gasLimit: '21000', ...fees },
      };
      return transferContext(caller, wallet, target, input, body);
    },

    async estimate(wallet: WalletRecord, input: TransferInput) {
      const target = targets.evm(input.chainId);
      const { kind, type, value, call } = evmCall(wallet, input);
      const chain = targets.chainInfo(target);
      let warning: string | undefined;
      let gasLimit: bigint;
      if (input.gasLimit !== undefined) gasLimit = BigInt(input.gasLimit);
      else {
        try {
          gasLimit = ((await target.gateway.estimateGas(call)) * GAS_BUFFER_PERCENT) / 100n;
        } catch (error) {
          if (error instanceof ChainUnavailableError) throw rpcUnavailable(error);
          gasLimit = kind === 'NATIVE' ? NATIVE_TRANSFER_GAS : TYPICAL_TOKEN_TRANSFER_GAS;
          warning = `Gas estimation failed (${(error as Error).message.slice(0, 200)}); the fee uses a typical gas limit and the transfer may fail`;
        }
      }
      const fees = await evmFees(target.gateway, input, type);
      const perGas = BigInt('gasPrice' in fees ? fees.gasPrice! : fees.maxFeePerGas);
      const nativeDecimals = chain?.nativeCurrency.decimals ?? 18;
      let tokenDecimals = nativeDecimals;
      if (kind === 'ERC20') {
        const usdc = chain?.usdc;
        if (usdc && usdc.address.toLowerCase() === input.tokenAddress!.toLowerCase()) tokenDecimals = usdc.decimals;
        else {
          tokenDecimals = 0;
          warning = [warning, 'Token decimals are not known to this deployment; transferAmount is in base units'].filter(Boolean).join('. ');
        }
      }
      return {
        estimatedFee: formatUnits(gasLimit * perGas, nativeDecimals),
        transferAmount: formatUnits(value, tokenDecimals),
        currency: chain?.nativeCurrency.symbol ?? 'ETH',
        gasLimit: gasLimit.toString(),
        ...fees,
        transactionType: type,
        ...(warning ? { warning } : {}),
      };
    },
  };
}
