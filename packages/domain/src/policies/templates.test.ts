import { describe, expect, it } from 'vitest';
import { parsePolicyDocument, type PolicyDocument } from './document.ts';
import { policyFromTemplate, policyTemplateIds, policyTemplates, type PolicyTemplateInput } from './templates.ts';

const evm = ['0x000000000000000000000000000000000000dEaD', '0x1111111111111111111111111111111111111111'];
const solanaAddress = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const usdc = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

/** Every template with parameters a partner would give, over the wallet types it offers. */
const validInputs: PolicyTemplateInput[] = [
  { template: 'allowlisted-recipients', parameters: { walletType: 'EVM', chainIds: ['84532'], addresses: evm } },
  { template: 'allowlisted-recipients', parameters: { walletType: 'SOLANA', addresses: [solanaAddress] } },
  { template: 'allowlisted-recipients', parameters: { walletType: 'SUI', chainIds: ['sui:devnet'], addresses: [`0x${'ab'.repeat(32)}`] } },
  { template: 'per-transaction-cap', parameters: { walletType: 'EVM', maxBaseUnits: '1000000000000000000' } },
  { template: 'per-transaction-cap', parameters: { walletType: 'STELLAR', chainIds: ['stellar:testnet'], maxBaseUnits: '10000000' } },
  { template: 'daily-cap', parameters: { walletType: 'EVM', chainIds: ['84532'], maxBaseUnits: '3000000000000000' } },
  { template: 'daily-cap', parameters: { walletType: 'EVM', chainIds: ['84532'], asset: usdc, maxBaseUnits: '5000000', policyId: 'usdc-daily' } },
  { template: 'daily-cap', parameters: { walletType: 'COSMOS', maxBaseUnits: '1000000' } },
  { template: 'daily-cap', parameters: { walletType: 'SOLANA', asset: solanaAddress, maxBaseUnits: '1000000' } },
  ...(['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'] as const).map((walletType): PolicyTemplateInput => ({ template: 'deny-raw-signatures', parameters: { walletType } })),
  { template: 'deny-chains', parameters: { chainIds: ['1', '8453'] } },
];

function built(input: PolicyTemplateInput): PolicyDocument {
  const result = policyFromTemplate(input);
  if (!result.ok) throw new Error(`template refused: ${JSON.stringify(result.problems)}`);
  return result.document;
}

describe('policy templates', () => {
  it('describes every template once, with its parameters', () => {
    expect(policyTemplates.map((t) => t.id)).toEqual([...policyTemplateIds]);
    for (const template of policyTemplates) expect(template.parameters.map((p) => p.name)).toContain('policyId');
  });

  it.each(validInputs.map((input) => [`${input.template} ${JSON.stringify(input.parameters)}`, input] as const))(
    'writes a document the authoring parser accepts as is: %s',
    (_name, input) => {
      const doc = built(input);
      const parsed = parsePolicyDocument(doc, { approvals: false });
      expect(parsed).toEqual({ ok: true, document: doc });
    },
  );

  it('allowlisted recipients: deny transfer and sign_transaction to anyone else, on the chosen networks', () => {
    expect(built(validInputs[0]!)).toEqual({
      id: 'allowlisted-recipients',
      schemaVersion: 'permissions.policy.v1',
      version: '1',
      selector: { walletType: 'EVM', chainId: ['84532'] },
      metadata: { productMode: 'guardrail', description: 'Only the allowlisted recipients may receive value' },
      rules: [
        {
          id: 'recipient-not-allowlisted',
          description: 'Deny any recipient not on the allowlist',
          effect: 'deny',
          actions: ['transfer', 'sign_transaction'],
          condition: { fact: 'request.to', op: 'nin', value: evm },
        },
      ],
    });
    // Sui has no transfer action: only sign_transaction.
    expect(built(validInputs[2]!).rules[0]!.actions).toEqual(['sign_transaction']);
  });

  it('per-transaction cap compares the native value; the daily cap meters native value or one token per UTC day', () => {
    expect(built(validInputs[3]!).rules[0]!.condition).toEqual({ fact: 'request.value.baseUnits', op: 'gt', value: '1000000000000000000' });
    expect(built(validInputs[5]!).rules[0]!.condition).toEqual({ aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '3000000000000000' });
    const token = built(validInputs[6]!);
    expect(token.id).toBe('usdc-daily');
    expect(token.rules[0]!.condition).toEqual({ aggregate: { meter: 'spend.token', window: '1d', asset: usdc }, op: 'gt', value: '5000000' });
    // Cosmos meters its raw signatures (SignDoc bank sends).
    expect(built(validInputs[7]!).rules[0]!.actions).toEqual(['raw_signature']);
  });

  it('deny raw signatures names no network (raw bytes carry none); deny chains denies all actions on the listed EVM chains', () => {
    const raw = built({ template: 'deny-raw-signatures', parameters: { walletType: 'SOLANA' } });
    expect(raw.selector).toEqual({ walletType: 'SOLANA' });
    expect(raw.rules).toEqual([{ id: 'deny-raw-signatures', description: 'No raw signatures', effect: 'deny', actions: ['raw_signature'] }]);
    const chains = built({ template: 'deny-chains', parameters: { chainIds: ['1', '8453'] } });
    expect(chains.selector).toEqual({ walletType: 'EVM' });
    expect(chains.rules[0]).toMatchObject({ effect: 'deny', actions: 'all', condition: { fact: 'request.chainId', op: 'in', value: ['1', '8453'] } });
  });

  it('trims list entries and drops empty ones (what a comma-separated form field gives)', () => {
    const doc = built({ template: 'allowlisted-recipients', parameters: { walletType: 'EVM', chainIds: [' 84532 ', ''], addresses: [` ${evm[0]}`, ''], policyId: '  ' } });
    expect(doc.id).toBe('allowlisted-recipients');
    expect(doc.selector.chainId).toEqual(['84532']);
    expect(doc.rules[0]!.condition).toMatchObject({ value: [evm[0]] });
  });

  it('reports missing parameters at their path; a bad value is left to the document validation, at its JSON path', () => {
    expect(policyFromTemplate({ template: 'allowlisted-recipients', parameters: { walletType: 'EVM', addresses: [] } })).toEqual({
      ok: false,
      problems: [{ path: 'parameters.addresses', message: 'expected at least one recipient' }],
    });
    expect(policyFromTemplate({ template: 'deny-chains', parameters: {} })).toMatchObject({ ok: false, problems: [{ path: 'parameters.chainIds' }] });
    expect(policyFromTemplate({ template: 'nope', parameters: {} })).toMatchObject({ ok: false });
    // COSMOS has no transfer or sign_transaction: the allowlist template does not offer it.
    expect(policyFromTemplate({ template: 'allowlisted-recipients', parameters: { walletType: 'COSMOS', addresses: ['x'] } })).toMatchObject({
      ok: false,
      problems: [{ path: 'parameters.walletType' }],
    });
    const wrong = built({ template: 'allowlisted-recipients', parameters: { walletType: 'EVM', addresses: ['0x1234'] } });
    expect(parsePolicyDocument(wrong, { approvals: false })).toMatchObject({ ok: false, problems: [{ path: 'rules.0.condition.value.0' }] });
  });
});
