/**
 * Policy templates: pure functions that turn a few parameters (wallet type, networks, addresses,
 * an amount, an asset) into a `permissions.policy.v1` document the console fills its editor with.
 * A template only writes the document; the editor's validation (and `apply`) judge it, so a wrong
 * address shows up at its JSON path in the document, like any hand-written mistake.
 * Browser-safe: no imports beyond zod and the fact catalog.
 */
import { z } from 'zod';
import { walletTypes } from '../wallets/schemas.ts';
import type { PolicyCondition } from './conditions.ts';
import type { PolicyDocument, PolicyRule } from './document.ts';
import { actionHasMeter, policyActionsOf, type PolicyActionName, type PolicyMeter, type PolicyWalletType } from './facts.ts';

export const policyTemplateIds = ['allowlisted-recipients', 'per-transaction-cap', 'daily-cap', 'deny-raw-signatures', 'deny-chains'] as const;
export type PolicyTemplateId = (typeof policyTemplateIds)[number];

/** How the console asks for a parameter: one wallet type, one line of text, or a list (comma or newline separated). */
export type PolicyTemplateParameterKind = 'walletType' | 'text' | 'list';

export interface PolicyTemplateParameter {
  name: string;
  label: string;
  kind: PolicyTemplateParameterKind;
  required: boolean;
  hint?: string;
  /** Wallet types the template can target (walletType parameters only). */
  walletTypes?: readonly PolicyWalletType[];
  placeholder?: string;
}

export interface PolicyTemplateDescriptor {
  id: PolicyTemplateId;
  title: string;
  description: string;
  parameters: PolicyTemplateParameter[];
}

/** The actions of the wallet type that move value to a recipient (`request.to`, `request.value.baseUnits`). */
const valueMovingActions = (walletType: PolicyWalletType): PolicyActionName[] =>
  (['transfer', 'sign_transaction'] as const).filter((action) => policyActionsOf(walletType).includes(action));

const typesWith = (has: (walletType: PolicyWalletType) => boolean) => walletTypes.filter(has);
const recipientWalletTypes = typesWith((t) => valueMovingActions(t).length > 0);
const meteredActions = (walletType: PolicyWalletType, meter: PolicyMeter) => policyActionsOf(walletType).filter((a) => actionHasMeter(walletType, a, meter));

const policyIdParameter = (fallback: PolicyTemplateId): PolicyTemplateParameter => ({
  name: 'policyId',
  label: 'Policy id',
  kind: 'text',
  required: false,
  hint: `Same id across versions; default "${fallback}"`,
  placeholder: fallback,
});
const walletTypeParameter = (types: readonly PolicyWalletType[]): PolicyTemplateParameter => ({ name: 'walletType', label: 'Wallet type', kind: 'walletType', required: true, walletTypes: types });
const chainIdsParameter: PolicyTemplateParameter = {
  name: 'chainIds',
  label: 'Networks (optional)',
  kind: 'list',
  required: false,
  hint: 'EVM: decimal chain ids (84532); others solana:devnet, stellar:testnet, sui:mainnet. Empty: every network',
};

export const policyTemplates: readonly PolicyTemplateDescriptor[] = [
  {
    id: 'allowlisted-recipients',
    title: 'Allowlisted recipients',
    description: 'Denies transfers and transactions whose recipient (for contract calls: the contract) is not on the list.',
    parameters: [
      policyIdParameter('allowlisted-recipients'),
      walletTypeParameter(recipientWalletTypes),
      chainIdsParameter,
      { name: 'addresses', label: 'Allowed recipients', kind: 'list', required: true, placeholder: '0x…, 0x…' },
    ],
  },
  {
    id: 'per-transaction-cap',
    title: 'Per-transaction cap (native)',
    description: 'Denies a transfer or transaction moving more native value than the cap, in base units (wei, lamports, …).',
    parameters: [
      policyIdParameter('per-transaction-cap'),
      walletTypeParameter(recipientWalletTypes),
      chainIdsParameter,
      { name: 'maxBaseUnits', label: 'Cap per request (base units)', kind: 'text', required: true, placeholder: '1000000000000000000' },
    ],
  },
  {
    id: 'daily-cap',
    title: 'Daily cap per asset',
    description: 'Denies requests once the day’s spend (UTC day, per key, wallet, network and asset) would exceed the cap. Native value, or one token.',
    parameters: [
      policyIdParameter('daily-cap'),
      walletTypeParameter(walletTypes),
      chainIdsParameter,
      { name: 'asset', label: 'Token (optional)', kind: 'text', required: false, hint: 'ERC-20 contract, SPL mint, Cosmos denom or Stellar CODE:ISSUER; empty: native value' },
      { name: 'maxBaseUnits', label: 'Daily cap (base units)', kind: 'text', required: true, placeholder: '5000000000000000000' },
    ],
  },
  {
    id: 'deny-raw-signatures',
    title: 'Deny raw signatures',
    description:
      'Turns permissions on for a wallet type with one rule denying raw signatures (they are denied by default while any policy is active; this makes it explicit and visible).',
    parameters: [policyIdParameter('deny-raw-signatures'), walletTypeParameter(walletTypes)],
  },
  {
    id: 'deny-chains',
    title: 'Deny chains (EVM)',
    description: 'Denies every EVM action whose request names one of these chain ids.',
    parameters: [
      policyIdParameter('deny-chains'),
      { name: 'chainIds', label: 'Denied chain ids', kind: 'list', required: true, placeholder: '1, 8453', hint: 'Decimal EVM chain ids' },
    ],
  },
];

const text = z.string().trim();
const optionalText = text.optional().transform((value) => (value ? value : undefined));
const list = z
  .array(text)
  .default([])
  .transform((values) => values.filter((v) => v.length > 0));
const walletType = z.enum(walletTypes);
const policyIdFor = (fallback: PolicyTemplateId) => optionalText.transform((value) => value ?? fallback);
const amount = text.min(1, { error: 'expected an amount in base units' });

/** The parameters each template takes; values are strings (lists: arrays of strings), as a form gives them. */
export const policyTemplateInput = z.discriminatedUnion('template', [
  z.strictObject({
    template: z.literal('allowlisted-recipients'),
    parameters: z.strictObject({
      policyId: policyIdFor('allowlisted-recipients'),
      walletType: z.enum(recipientWalletTypes as [PolicyWalletType, ...PolicyWalletType[]]),
      chainIds: list,
      addresses: list.refine((a) => a.length > 0, { error: 'expected at least one recipient' }),
    }),
  }),
  z.strictObject({
    template: z.literal('per-transaction-cap'),
    parameters: z.strictObject({
      policyId: policyIdFor('per-transaction-cap'),
      walletType: z.enum(recipientWalletTypes as [PolicyWalletType, ...PolicyWalletType[]]),
      chainIds: list,
      maxBaseUnits: amount,
    }),
  }),
  z.strictObject({
    template: z.literal('daily-cap'),
    parameters: z.strictObject({ policyId: policyIdFor('daily-cap'), walletType, chainIds: list, asset: optionalText, maxBaseUnits: amount }),
  }),
  z.strictObject({
    template: z.literal('deny-raw-signatures'),
    parameters: z.strictObject({ policyId: policyIdFor('deny-raw-signatures'), walletType }),
  }),
  z.strictObject({
    template: z.literal('deny-chains'),
    parameters: z.strictObject({ policyId: policyIdFor('deny-chains'), chainIds: list.refine((c) => c.length > 0, { error: 'expected at least one chain id' }) }),
  }),
]);
export type PolicyTemplateInput = z.input<typeof policyTemplateInput>;
type ParsedTemplateInput = z.output<typeof policyTemplateInput>;

function documentOf(
  policyId: string,
  walletType: PolicyWalletType,
  chainIds: string[],
  description: string,
  rules: PolicyRule[],
): PolicyDocument {
  return {
    id: policyId,
    schemaVersion: 'permissions.policy.v1',
    version: '1',
    selector: { walletType, ...(chainIds.length > 0 ? { chainId: chainIds } : {}) },
    metadata: { productMode: 'guardrail', description },
    rules,
  };
}

const denyRule = (id: string, description: string, actions: PolicyRule['actions'], condition?: PolicyCondition): PolicyRule => ({
  id,
  description,
  effect: 'deny',
  actions,
  ...(condition ? { condition } : {}),
});

/** Builds the template's document from already parsed parameters. */
function buildTemplate(input: ParsedTemplateInput): PolicyDocument {
  switch (input.template) {
    case 'allowlisted-recipients': {
      const { policyId, walletType, chainIds, addresses } = input.parameters;
      return documentOf(policyId, walletType, chainIds, 'Only the allowlisted recipients may receive value', [
        denyRule('recipient-not-allowlisted', 'Deny any recipient not on the allowlist', valueMovingActions(walletType), {
          fact: 'request.to',
          op: 'nin',
          value: addresses,
        }),
      ]);
    }
    case 'per-transaction-cap': {
      const { policyId, walletType, chainIds, maxBaseUnits } = input.parameters;
      return documentOf(policyId, walletType, chainIds, `At most ${maxBaseUnits} native base units per request`, [
        denyRule('native-cap-per-request', 'Deny a request moving more native value than the cap', valueMovingActions(walletType), {
          fact: 'request.value.baseUnits',
          op: 'gt',
          value: maxBaseUnits,
        }),
      ]);
    }
    case 'daily-cap': {
      const { policyId, walletType, chainIds, asset, maxBaseUnits } = input.parameters;
      const meter: PolicyMeter = asset ? 'spend.token' : 'spend.native';
      const what = asset ? `token ${asset}` : 'native value';
      return documentOf(policyId, walletType, chainIds, `At most ${maxBaseUnits} base units of ${what} per UTC day`, [
        denyRule('daily-cap', `Deny once the day's spend of ${what} would exceed the cap`, meteredActions(walletType, meter), {
          aggregate: { meter, window: '1d', ...(asset ? { asset } : {}) },
          op: 'gt',
          value: maxBaseUnits,
        }),
      ]);
    }
    case 'deny-raw-signatures': {
      const { policyId, walletType } = input.parameters;
      return documentOf(policyId, walletType, [], 'Raw signatures are denied', [denyRule('deny-raw-signatures', 'No raw signatures', ['raw_signature'])]);
    }
    case 'deny-chains': {
      const { policyId, chainIds } = input.parameters;
      return documentOf(policyId, 'EVM', [], `Nothing on chain ${chainIds.join(', ')}`, [
        denyRule('deny-chains', 'Deny every action on these chains', 'all', { fact: 'request.chainId', op: 'in', value: chainIds }),
      ]);
    }
  }
}

export type PolicyTemplateResult = { ok: true; document: PolicyDocument } | { ok: false; problems: { path: string; message: string }[] };

/**
 * The template's document, or the parameter problems (`parameters.addresses`, ...). The document
 * is not validated here: the caller validates it like any draft.
 */
export function policyFromTemplate(input: unknown): PolicyTemplateResult {
  const parsed = policyTemplateInput.safeParse(input);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })) };
  return { ok: true, document: buildTemplate(parsed.data) };
}
