/**
 * The closed, typed fact catalog of `permissions.policy.v1` documents: which actions a policy can
 * name, on which wallet types, and which facts a condition may read for each action. Evaluation
 * (a later slice) decodes these facts from a signing intent; this module only says what exists.
 */
import { walletTypes } from '../wallets/schemas.ts';

export type PolicyWalletType = (typeof walletTypes)[number];

/** How a fact's `value` is written and compared. */
export type FactType =
  /** Decimal string of a non-negative integer (base units), compared as a big integer. */
  | 'uint'
  /** An address of the selector's wallet type (EVM: compared case-insensitively). */
  | 'address'
  /** Token contract (EVM), mint (Solana), denom (Cosmos) or `CODE:ISSUER` (Stellar). */
  | 'asset'
  /** EVM 4-byte function selector, `0x` + 8 hex digits. */
  | 'selector'
  /** Network in the wallet type's form (EVM: decimal chain id; others `solana:devnet`, ...). */
  | 'chainId'
  | 'uuid'
  | 'string';

export interface FactDefinition {
  type: FactType;
  description: string;
  /** Wallet types that carry the fact at all; absent = every type. */
  walletTypes?: readonly PolicyWalletType[];
}

export const policyFacts = {
  'wallet.id': { type: 'uuid', description: 'The signing wallet' },
  'request.chainId': {
    type: 'chainId',
    description: 'Network of the request: EVM chain id (transaction, transfer, typed-data domain, authorization); Solana, Stellar, Sui, Cosmos network id',
  },
  'request.to': {
    type: 'address',
    description: 'Destination: transfer recipient, EVM transaction `to` (the contract for calls), Solana/Stellar/Sui/Cosmos payee',
  },
  'request.value.baseUnits': { type: 'uint', description: 'Native value leaving the wallet, in base units (wei, lamports, stroops, MIST, base denom)' },
  'request.token.address': {
    type: 'asset',
    description: 'Token moved or named: ERC-20 contract, SPL mint, Cosmos denom, Stellar CODE:ISSUER',
    walletTypes: ['EVM', 'SOLANA', 'COSMOS', 'STELLAR'],
  },
  'request.token.value.baseUnits': {
    type: 'uint',
    description: 'Token amount in the token base units (ERC-20 transfer/approve amount, SPL amount, ...)',
    walletTypes: ['EVM', 'SOLANA', 'COSMOS', 'STELLAR'],
  },
  'request.function.selector': { type: 'selector', description: 'First 4 bytes of EVM calldata', walletTypes: ['EVM'] },
  'request.spender': { type: 'address', description: 'Spender of an ERC-20 approve', walletTypes: ['EVM'] },
  'request.typedData.primaryType': { type: 'string', description: 'EIP-712 primary type', walletTypes: ['EVM'] },
  'request.typedData.domain.name': { type: 'string', description: 'EIP-712 domain name', walletTypes: ['EVM'] },
  'request.typedData.domain.version': { type: 'string', description: 'EIP-712 domain version', walletTypes: ['EVM'] },
  'request.typedData.domain.chainId': { type: 'chainId', description: 'EIP-712 domain chain id', walletTypes: ['EVM'] },
  'request.typedData.domain.verifyingContract': { type: 'address', description: 'EIP-712 domain verifying contract', walletTypes: ['EVM'] },
  'request.authorization.address': { type: 'address', description: 'EIP-7702 delegate contract', walletTypes: ['EVM'] },
} as const satisfies Record<string, FactDefinition>;

export type PolicyFactName = keyof typeof policyFacts;
export const policyFactNames = Object.keys(policyFacts) as [PolicyFactName, ...PolicyFactName[]];

/** Spend meters an `aggregate` condition can read (native value, or token value of one asset). */
export const policyMeters = ['spend.native', 'spend.token'] as const;
export type PolicyMeter = (typeof policyMeters)[number];

export interface ActionDefinition {
  description: string;
  walletTypes: readonly PolicyWalletType[];
  /** Facts the action carries (a fact's own `walletTypes` still applies). */
  facts: readonly PolicyFactName[];
  /** Whether spend meters count this action (spec rule 7: value-moving requests only). */
  metered: boolean;
}

const transferFacts = ['wallet.id', 'request.chainId', 'request.to', 'request.value.baseUnits', 'request.token.address', 'request.token.value.baseUnits'] as const;
/** Contract calls of the yield signers: `request.to` is the contract called. */
const callFacts = ['wallet.id', 'request.chainId', 'request.to', 'request.function.selector', 'request.token.address', 'request.token.value.baseUnits'] as const;

export const policyActions = {
  transfer: { description: 'POST /transfer: build, sign and send native or token value', walletTypes: ['EVM', 'SOLANA'], facts: transferFacts, metered: true },
  sign_transaction: {
    description: 'POST /sign-transaction, with or without broadcast',
    walletTypes: ['EVM', 'SOLANA', 'STELLAR', 'SUI'],
    facts: [...transferFacts, 'request.function.selector'],
    metered: true,
  },
  cancel_transaction: { description: 'Cancellation of a pending EVM nonce (0 value to self)', walletTypes: ['EVM'], facts: ['wallet.id', 'request.chainId'], metered: false },
  sign_message: { description: 'POST /sign-message on EVM (EIP-191); on other types it is raw_signature', walletTypes: ['EVM'], facts: ['wallet.id'], metered: false },
  sign_typed_data: {
    description: 'POST /sign-typed-data (EIP-712)',
    walletTypes: ['EVM'],
    facts: [
      'wallet.id',
      'request.chainId',
      'request.typedData.primaryType',
      'request.typedData.domain.name',
      'request.typedData.domain.version',
      'request.typedData.domain.chainId',
      'request.typedData.domain.verifyingContract',
    ],
    metered: false,
  },
  sign_authorization: {
    description: 'POST /sign-authorization (EIP-7702)',
    walletTypes: ['EVM'],
    facts: ['wallet.id', 'request.chainId', 'request.authorization.address'],
    metered: false,
  },
  raw_signature: {
    description: 'POST /sign-raw on every type, and /sign-message on non-EVM types; denied while permissions are on unless a rule allows it. '
      + 'Raw bytes carry no meaning, except Cosmos sign bytes that decode as a SignDoc with a bank send',
    walletTypes: walletTypes,
    facts: ['wallet.id', 'request.chainId', 'request.to', 'request.value.baseUnits', 'request.token.address', 'request.token.value.baseUnits'],
    metered: true,
  },
  approve: {
    description: 'Yield: ERC-20 approve(spender, amount) naming the bundler wrapper (vault provider) or the pool as spender',
    walletTypes: ['EVM'],
    facts: [...callFacts, 'request.spender'],
    metered: false,
  },
  vaultBundlesV1Deposit: { description: 'Yield: vault-provider deposit through the official bundler wrapper contract', walletTypes: ['EVM'], facts: callFacts, metered: false },
  withdraw: { description: 'Yield: withdraw(assets) on the vault or pool; `all` on the pool shows the max-uint256 sentinel', walletTypes: ['EVM'], facts: callFacts, metered: false },
  redeem: { description: 'Yield: redeem(shares) on the vault; `all` shows the share balance captured at preparation', walletTypes: ['EVM'], facts: callFacts, metered: false },
  supply: { description: 'Yield: pool-provider deposit, supply(asset, amount) on the pool', walletTypes: ['EVM'], facts: callFacts, metered: false },
} as const satisfies Record<string, ActionDefinition>;

export type PolicyActionName = keyof typeof policyActions;
export const policyActionNames = Object.keys(policyActions) as [PolicyActionName, ...PolicyActionName[]];

/** Facts only some wallet types' raw signatures carry (Cosmos SignDoc bank sends). */
const rawFactsByType: Record<PolicyWalletType, readonly PolicyFactName[]> = {
  EVM: ['wallet.id'],
  SOLANA: ['wallet.id'],
  STELLAR: ['wallet.id'],
  SUI: ['wallet.id'],
  COSMOS: policyActions.raw_signature.facts,
};

export function policyActionsOf(walletType: PolicyWalletType): PolicyActionName[] {
  return policyActionNames.filter((a) => (policyActions[a].walletTypes as readonly string[]).includes(walletType));
}

/** Whether `action` on `walletType` carries `fact`. */
export function actionHasFact(walletType: PolicyWalletType, action: PolicyActionName, fact: PolicyFactName): boolean {
  const def: FactDefinition = policyFacts[fact];
  if (def.walletTypes && !def.walletTypes.includes(walletType)) return false;
  if (!(policyActions[action].walletTypes as readonly string[]).includes(walletType)) return false;
  const facts: readonly string[] = action === 'raw_signature' ? rawFactsByType[walletType] : policyActions[action].facts;
  return facts.includes(fact);
}

/** Whether spend meters count `action` on `walletType` (Sui has no token meter). */
export function actionHasMeter(walletType: PolicyWalletType, action: PolicyActionName, meter: PolicyMeter): boolean {
  if (!policyActions[action].metered) return false;
  const valueFact: PolicyFactName = meter === 'spend.native' ? 'request.value.baseUnits' : 'request.token.value.baseUnits';
  return actionHasFact(walletType, action, valueFact);
}

const evmAddress = /^0x[0-9a-fA-F]{40}$/;
const patterns: Record<'address' | 'chainId', Record<PolicyWalletType, RegExp>> = {
  address: {
    EVM: evmAddress,
    SOLANA: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
    STELLAR: /^G[A-Z2-7]{55}$/,
    SUI: /^0x[0-9a-fA-F]{64}$/,
    COSMOS: /^[a-z][a-z0-9]{0,82}1[02-9ac-hj-np-z]{38,}$/,
  },
  chainId: {
    EVM: /^[1-9]\d{0,18}$/,
    SOLANA: /^solana:(mainnet|devnet|testnet)$/,
    STELLAR: /^stellar:(mainnet|testnet|futurenet)$/,
    SUI: /^sui:(mainnet|testnet|devnet|localnet)$/,
    COSMOS: /^cosmos:[a-zA-Z0-9_-]{1,64}$/,
  },
};

const formats: Record<'address' | 'chainId', Record<PolicyWalletType, string>> = {
  address: {
    EVM: '0x and 40 hex digits',
    SOLANA: 'a base58 public key',
    STELLAR: 'a G... StrKey',
    SUI: '0x and 64 hex digits',
    COSMOS: 'a bech32 address',
  },
  chainId: {
    EVM: 'a positive chain id as a decimal string, e.g. "84532"',
    SOLANA: 'solana:mainnet, solana:devnet or solana:testnet',
    STELLAR: 'stellar:mainnet, stellar:testnet or stellar:futurenet',
    SUI: 'sui:mainnet, sui:testnet, sui:devnet or sui:localnet',
    COSMOS: 'cosmos:<chain-id>, e.g. cosmos:cosmoshub-4',
  },
};

const uint = /^(0|[1-9]\d*)$/;
const maxUint256 = (1n << 256n) - 1n;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why `value` is not a value of `type` on `walletType`, or null when it is. */
export function policyValueProblem(type: FactType, walletType: PolicyWalletType, value: string): string | null {
  switch (type) {
    case 'uint':
      if (!uint.test(value)) return 'expected a non-negative integer in base units as a decimal string (e.g. "1000000")';
      return value.length <= 78 && BigInt(value) <= maxUint256 ? null : 'expected at most 2^256 - 1';
    case 'selector':
      return /^0x[0-9a-fA-F]{8}$/.test(value) ? null : 'expected a 4-byte function selector, 0x and 8 hex digits';
    case 'uuid':
      return uuid.test(value) ? null : 'expected a uuid';
    case 'string':
      return value.length >= 1 && value.length <= 256 ? null : 'expected 1 to 256 characters';
    case 'asset':
      if (walletType === 'EVM' || walletType === 'SOLANA') return policyValueProblem('address', walletType, value);
      if (walletType === 'STELLAR') return /^[A-Za-z0-9]{1,12}:G[A-Z2-7]{55}$/.test(value) ? null : 'expected a Stellar asset as CODE:ISSUER';
      return /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/.test(value) ? null : 'expected a Cosmos denom';
    case 'address':
    case 'chainId':
      return patterns[type][walletType].test(value) ? null : `expected ${formats[type][walletType]} for ${walletType} wallets`;
  }
}
