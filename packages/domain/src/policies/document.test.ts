import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { policyWindowBounds, policyWindowMs } from './conditions.ts';
import { policyActionNames, policyFactNames } from './facts.ts';
import { policyApprovalsUnavailableMessage, parsePolicyDocument, policyDocumentError, policyDocumentJsonSchema, policyDocumentSchema, type PolicyDocument } from './document.ts';

/** The repository root, found from this file; the shared spec is checked out beside it. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const examplesDir = path.resolve(repoRoot, '../shared/spec/policy-examples');
const exampleFiles = readdirSync(examplesDir).filter((f) => f.endsWith('.json')).sort();
const example = (name: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(examplesDir, name), 'utf8')) as Record<string, unknown>;

function accepted(input: unknown): PolicyDocument {
  const result = parsePolicyDocument(input);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.problems)}`);
  return result.document;
}

describe('policy examples (fixed points of the schema)', () => {
  it('finds the examples beside the repository', () => {
    expect(exampleFiles).toEqual(expect.arrayContaining(['evm-approvals.json', 'evm-guardrails.json', 'solana-raw.json']));
  });

  it.each(exampleFiles)('accepts %s exactly as written', (file) => {
    const input = example(file);
    // No defaults added, nothing rewritten: the parsed document is the file.
    expect(accepted(input)).toEqual(input);
  });

  it('evm-guardrails: recipients allowlist, per-transfer cap and a daily meter on a UTC day', () => {
    const doc = accepted(example('evm-guardrails.json'));
    expect(doc.selector).toEqual({ walletType: 'EVM', chainId: ['84532'] });
    expect(doc.rules.map((r) => [r.id, r.effect, r.actions])).toEqual([
      ['recipients', 'deny', 'all'],
      ['per-transfer', 'deny', 'all'],
      ['daily', 'deny', 'all'],
    ]);
    const daily = doc.rules[2]?.condition;
    expect(daily && 'aggregate' in daily ? daily.aggregate : null).toEqual({ meter: 'spend.native', window: '1d' });
    expect(policyWindowBounds('1d', new Date('2026-11-24T23:59:59.999Z'))).toEqual({
      start: new Date('2026-11-24T00:00:00.000Z'),
      end: new Date('2026-11-25T00:00:00.000Z'),
    });
  });

  it('solana-raw: a condition-less allow of raw_signature on every Solana network', () => {
    const doc = accepted(example('solana-raw.json'));
    expect(doc.selector).toEqual({ walletType: 'SOLANA' });
    expect(doc.rules).toEqual([{ id: 'raw', effect: 'allow', actions: ['raw_signature'] }]);
  });

  it('a require_approval rule without approvalRequirement is accepted: a partner review', () => {
    expect(accepted(evmRule({ effect: 'require_approval', actions: 'all' })).rules[0]).toEqual({ id: 'r', effect: 'require_approval', actions: 'all' });
  });

  it('evm-approvals: accepted by the schema, refused where approvals are switched off', () => {
    const input = example('evm-approvals.json');
    expect(accepted(input).rules[0]?.approvalRequirement?.stages[0]?.configurable).toEqual({ requiredApprovals: { min: 1, max: 3 } });
    const refused = parsePolicyDocument(input, { approvals: false });
    expect(refused).toEqual({ ok: false, problems: [{ path: 'rules.0.effect', message: policyApprovalsUnavailableMessage }] });
  });
});

type Doc = Record<string, any>;

const guardrails = () => example('evm-guardrails.json') as Doc;
const raw = () => example('solana-raw.json') as Doc;
const approvals = () => example('evm-approvals.json') as Doc;
const evmRule = (rule: Doc) => ({ ...guardrails(), rules: [{ id: 'r', effect: 'deny', ...rule }] });
const leaf = (fact: string, op: string, value: unknown) => ({ fact, op, value });

const refused: [string, Doc, string, RegExp][] = [
  ['unknown top-level key', { ...guardrails(), owner: 'x' }, 'owner', /unknown key "owner"/],
  ['unknown key at depth', evmRule({ actions: 'all', condition: { all: [{ not: { ...leaf('request.to', 'eq', '0x000000000000000000000000000000000000dEaD'), extra: 1 } }] } }), 'rules.0.condition.all.0.not.extra', /unknown key/],
  ['unknown key in an aggregate', evmRule({ actions: 'all', condition: { aggregate: { meter: 'spend.native', window: '1d', align: 'utc' }, op: 'gt', value: '1' } }), 'rules.0.condition.aggregate.align', /unknown key/],
  ['unknown key in the selector', { ...guardrails(), selector: { walletType: 'EVM', userId: 'u' } }, 'selector.userId', /unknown key/],
  ['a selector with two wallet types', { ...guardrails(), selector: { walletType: ['EVM', 'SOLANA'] } }, 'selector.walletType', /exactly one wallet type/],
  ['an unknown wallet type', { ...guardrails(), selector: { walletType: 'BITCOIN' } }, 'selector.walletType', /one wallet type/],
  ['a scalar chainId', { ...guardrails(), selector: { walletType: 'EVM', chainId: '84532' } }, 'selector.chainId', /array/i],
  ['a duplicate network', { ...guardrails(), selector: { walletType: 'EVM', chainId: ['84532', '84532'] } }, 'selector.chainId.1', /duplicate/],
  ['a network of another wallet type', { ...raw(), selector: { walletType: 'SOLANA', chainId: ['84532'] } }, 'selector.chainId.0', /solana:devnet/],
  ['a wallet id that is not a uuid', { ...guardrails(), selector: { walletType: 'EVM', walletId: ['w1'] } }, 'selector.walletId.0', /UUID/i],
  ['empty rules', { ...guardrails(), rules: [] }, 'rules', /at least one rule/],
  ['duplicate rule ids', { ...guardrails(), rules: [guardrails().rules[0], guardrails().rules[0]] }, 'rules.1.id', /duplicate rule id/],
  ['a wrong schemaVersion', { ...guardrails(), schemaVersion: 'permissions.policy.v2' }, 'schemaVersion', /permissions\.policy\.v1/],
  ['a numeric version', { ...guardrails(), version: 1 }, 'version', /string/],
  ['version "0"', { ...guardrails(), version: '0' }, 'version', /positive integer/],
  ['a parameter in a guardrail policy', evmRule({ actions: ['transfer'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: '5', parameter: { id: 'cap', label: 'Cap' } } }), 'rules.0.condition.parameter', /only for delegation policies/],
  ['an effective window ending before it starts', { ...guardrails(), effectiveFrom: '2027-01-02T00:00:00Z', effectiveUntil: '2027-01-01T00:00:00Z' }, 'effectiveUntil', /later than effectiveFrom/],
  ['a date without a time zone', { ...guardrails(), effectiveFrom: '2027-01-02T00:00:00' }, 'effectiveFrom', /time zone/],
  ['an unknown action', evmRule({ actions: ['sign_everything'] }), 'rules.0.actions', /"all" or a non-empty array of actions/],
  ['an action of another wallet type', { ...raw(), rules: [{ id: 'r', effect: 'deny', actions: ['sign_typed_data'] }] }, 'rules.0.actions.0', /not an action of SOLANA wallets/],
  ['empty actions', evmRule({ actions: [] }), 'rules.0.actions', /non-empty array/],
  ['a fact not valid for the rule action', evmRule({ actions: ['sign_message'], condition: leaf('request.to', 'eq', '0x000000000000000000000000000000000000dEaD') }), 'rules.0.condition.fact', /not available for action sign_message/],
  ['a fact not valid for one of two actions', evmRule({ actions: ['transfer', 'sign_authorization'], condition: leaf('request.token.address', 'eq', '0x000000000000000000000000000000000000dEaD') }), 'rules.0.condition.fact', /sign_authorization/],
  ['a raw-signature rule reading the recipient', { ...raw(), rules: [{ id: 'r', effect: 'deny', actions: ['raw_signature'], condition: { not: leaf('request.to', 'eq', 'x') } }] }, 'rules.0.condition.not.fact', /raw_signature on SOLANA/],
  ['a fact of another wallet type under all', { ...raw(), rules: [{ id: 'r', effect: 'deny', actions: 'all', condition: leaf('request.function.selector', 'eq', '0xa9059cbb') }] }, 'rules.0.condition.fact', /any action of SOLANA/],
  ['an unknown fact', evmRule({ actions: 'all', condition: leaf('request.amount', 'gt', '1') }), 'rules.0.condition.fact', /unknown fact "request.amount"/],
  ['a non-integer amount', evmRule({ actions: 'all', condition: leaf('request.value.baseUnits', 'gt', '0.001') }), 'rules.0.condition.value', /integer in base units/],
  ['an amount as a JSON number', evmRule({ actions: 'all', condition: leaf('request.value.baseUnits', 'gt', 1000) }), 'rules.0.condition.value', /decimal strings/],
  ['an amount above uint256', evmRule({ actions: 'all', condition: leaf('request.value.baseUnits', 'gt', (1n << 256n).toString()) }), 'rules.0.condition.value', /2\^256 - 1/],
  ['a negative amount', evmRule({ actions: 'all', condition: leaf('request.token.value.baseUnits', 'lte', '-1') }), 'rules.0.condition.value', /non-negative integer/],
  ['a malformed address in a set', evmRule({ actions: 'all', condition: leaf('request.to', 'in', ['0x000000000000000000000000000000000000dEaD', '0xdead']) }), 'rules.0.condition.value.1', /40 hex digits/],
  ['in with a single value', evmRule({ actions: 'all', condition: leaf('request.to', 'in', '0x000000000000000000000000000000000000dEaD') }), 'rules.0.condition.value', /array/],
  ['eq with an array', evmRule({ actions: 'all', condition: leaf('request.chainId', 'eq', ['84532']) }), 'rules.0.condition.value', /single value/],
  ['an ordering operator on an address', evmRule({ actions: 'all', condition: leaf('request.to', 'gt', '0x000000000000000000000000000000000000dEaD') }), 'rules.0.condition.op', /compares amounts/],
  ['a bad selector', evmRule({ actions: ['sign_transaction'], condition: leaf('request.function.selector', 'eq', 'a9059cbb') }), 'rules.0.condition.value', /4-byte function selector/],
  ['an unknown operator', evmRule({ actions: 'all', condition: leaf('request.value.baseUnits', 'between', '1') }), 'rules.0.condition.op', /Invalid option/i],
  ['a bad window unit', evmRule({ actions: 'all', condition: { aggregate: { meter: 'spend.native', window: '1w' }, op: 'gt', value: '1' } }), 'rules.0.condition.aggregate.window', /ms, m, h or d/],
  ['a zero window', evmRule({ actions: 'all', condition: { aggregate: { meter: 'spend.native', window: '0d' }, op: 'gt', value: '1' } }), 'rules.0.condition.aggregate.window', /positive integer/],
  ['a window over 366 days', evmRule({ actions: 'all', condition: { aggregate: { meter: 'spend.native', window: '367d' }, op: 'gt', value: '1' } }), 'rules.0.condition.aggregate.window', /366 days/],
  ['a meter on an unmetered action', evmRule({ actions: ['sign_typed_data'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '1' } }), 'rules.0.condition.aggregate.meter', /sign_typed_data/],
  ['an asset on the native meter', evmRule({ actions: 'all', condition: { aggregate: { meter: 'spend.native', window: '1d', asset: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' }, op: 'gt', value: '1' } }), 'rules.0.condition.aggregate.asset', /spend\.token/],
  ['a token meter on Sui (native only)', { ...raw(), selector: { walletType: 'SUI' }, rules: [{ id: 'r', effect: 'deny', actions: 'all', condition: { aggregate: { meter: 'spend.token', window: '1d', asset: 'x' }, op: 'gt', value: '1' } }] }, 'rules.0.condition.aggregate.meter', /not available for any action of SUI/],
  ['a meter limit as a JSON number', evmRule({ actions: 'all', condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: 3 } }), 'rules.0.condition.value', /decimal string/],
  ['a non-integer meter limit', evmRule({ actions: 'all', condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '1e18' } }), 'rules.0.condition.value', /integer in base units/],
  ['eq on a meter', evmRule({ actions: 'all', condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'eq', value: '1' } }), 'rules.0.condition.op', /Invalid option/i],
  ['a condition of no known kind', evmRule({ actions: 'all', condition: { every: [] } }), 'rules.0.condition', /expected a condition/],
  ['an empty all group', evmRule({ actions: 'all', condition: { all: [] } }), 'rules.0.condition.all', /too small|>=1/i],
  ['conditions nested too deep', evmRule({ actions: 'all', condition: Array.from({ length: 9 }).reduce<Doc>((c) => ({ not: c }), leaf('request.value.baseUnits', 'gt', '1')) }), 'rules.0.condition', /at most 8 levels/],
  ['allow on other actions than raw_signature', evmRule({ effect: 'allow', actions: ['transfer'] }), 'rules.0.actions', /only lifts the default denial of raw signatures/],
  ['allow on all', evmRule({ effect: 'allow', actions: 'all' }), 'rules.0.actions', /raw_signature/],
  ['raw_signature under a network selector', { ...raw(), selector: { walletType: 'SOLANA', chainId: ['solana:devnet'] } }, 'rules.0.actions', /carry no network/],
  ['an unknown effect', evmRule({ effect: 'block', actions: 'all' }), 'rules.0.effect', /Invalid option/i],
  ...(['8d', '0h', '1w', '15', '169h', '10081m'] as const).map((expiresIn): [string, Doc, string, RegExp] => [
    `an approval expiry of ${expiresIn}`,
    { ...approvals(), rules: [{ ...approvals().rules[0], approvalRequirement: { ...approvals().rules[0].approvalRequirement, expiresIn } }] },
    'rules.0.approvalRequirement.expiresIn',
    /at most 7d/,
  ]),
  ['an approvalRequirement on a deny rule', { ...approvals(), rules: [{ ...approvals().rules[0], effect: 'deny' }] }, 'rules.0.approvalRequirement', /only a require_approval rule/],
  ['required approvals outside the configurable range', (() => {
    const doc = approvals();
    doc.rules[0].approvalRequirement.stages[0].requiredApprovals = 4;
    return doc;
  })(), 'rules.0.approvalRequirement.stages.0.configurable.requiredApprovals', /min <= requiredApprovals <= max/],
];

describe('refused policy documents', () => {
  it.each(refused)('refuses %s at its path', (_name, input, expectedPath, message) => {
    const result = parsePolicyDocument(input);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    const problem = problems.find((p) => p.path === expectedPath);
    expect(problem, JSON.stringify(problems)).toBeDefined();
    expect(problem?.message).toMatch(message);
  });

  it('the exported zod schema carries the catalog checks too', () => {
    const result = policyDocumentSchema.safeParse(evmRule({ actions: ['sign_message'], condition: leaf('request.value.baseUnits', 'gt', '1') }));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['rules.0.condition.fact']);
  });

  it('refuses a value that is not an object at the root', () => {
    expect(parsePolicyDocument('policy')).toEqual({ ok: false, problems: [{ path: '', message: expect.stringMatching(/object/) as string }] });
  });

  it('reports every problem, not only the first', () => {
    const doc = guardrails();
    doc.rules[1].condition.value = '0.5';
    doc.rules[2].condition.aggregate.window = '1y';
    const result = parsePolicyDocument(doc);
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual(['rules.2.condition.aggregate.window', 'rules.1.condition.value']);
  });

  it('turns problems into a 400 INVALID_REQUEST with details', () => {
    const result = parsePolicyDocument({ ...guardrails(), rules: [] });
    const error = policyDocumentError(result.ok ? [] : result.problems);
    expect(error.status).toBe(400);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toBe('Invalid policy: rules: a policy needs at least one rule');
  });
});

/** Every (path, replacement) pair of a document: each value swapped for values of other types. */
function* mutations(value: unknown, path: (string | number)[] = []): Generator<[(string | number)[], unknown]> {
  for (const replacement of [null, 7, 'x', [], {}, true]) yield [path, replacement];
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) yield* mutations(child, [...path, Array.isArray(value) ? Number(key) : key]);
  }
}

function withValue(doc: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(doc) as Doc;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Doc;
  node[path[path.length - 1] as string] = replacement;
  return copy;
}

describe('robustness', () => {
  it.each(exampleFiles)('never throws on a mutation of %s and always explains a refusal', (file) => {
    const input = example(file);
    for (const [at, replacement] of mutations(input)) {
      const result = parsePolicyDocument(withValue(input, at, replacement));
      if (result.ok) continue;
      expect(result.problems.length).toBeGreaterThan(0);
      for (const problem of result.problems) expect(problem.message.length).toBeGreaterThan(0);
    }
  });
});

describe('accepted documents beyond the examples', () => {
  it('accepts the yield actions and a token meter on EVM', () => {
    const doc = {
      ...guardrails(),
      selector: { walletType: 'EVM', chainId: ['8453', '1'], walletId: ['6f1c1f43-1b7c-4c39-9e39-1f3a7f2d8a11'], apiKeyId: ['0b9a3d4e-5f60-4718-8293-a4b5c6d7e8f9'] },
      effectiveFrom: '2027-01-01T00:00:00Z',
      rules: [
        { id: 'spender', effect: 'deny', actions: ['approve'], condition: { not: leaf('request.spender', 'in', ['0x000000000000000000000000000000000000bEEF']) } },
        { id: 'vault', effect: 'deny', actions: ['vaultBundlesV1Deposit', 'withdraw', 'redeem'], condition: { not: leaf('request.to', 'eq', '0x000000000000000000000000000000000000dEaD') } },
        {
          id: 'usdc-daily',
          effect: 'deny',
          actions: ['transfer', 'sign_transaction'],
          condition: { all: [{ aggregate: { meter: 'spend.token', window: '24h', asset: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' }, op: 'gt', value: '1000000000' }] },
        },
        { id: 'permit', effect: 'deny', actions: ['sign_typed_data'], condition: { any: [leaf('request.typedData.primaryType', 'eq', 'Permit'), leaf('request.typedData.domain.chainId', 'ne', '8453')] } },
      ],
    };
    expect(accepted(doc)).toEqual(doc);
  });

  it('accepts a Cosmos raw-signature cap (sign bytes decoded as a bank send)', () => {
    const doc = {
      id: 'cosmos-cap',
      schemaVersion: 'permissions.policy.v1',
      version: '2',
      selector: { walletType: 'COSMOS', chainId: ['cosmos:cosmoshub-4'] },
      metadata: { productMode: 'guardrail' },
      rules: [
        { id: 'raw', effect: 'allow', actions: ['raw_signature'] },
        { id: 'cap', effect: 'deny', actions: ['raw_signature'], condition: { aggregate: { meter: 'spend.token', window: '1h', asset: 'uatom' }, op: 'gte', value: '5000000' } },
      ],
    };
    expect(accepted(doc)).toEqual(doc);
  });
});

describe('windows', () => {
  it.each([
    ['500ms', 500],
    ['15m', 900_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['366d', 31_622_400_000],
  ])('%s is %i ms', (text, ms) => expect(policyWindowMs(text)).toBe(ms));

  it.each(['1w', '0h', '1.5h', 'd', '01d', '1 d', '367d'])('refuses %s', (text) => expect(policyWindowMs(text)).toBeNull());

  it('aligns fixed windows to the Unix epoch in UTC', () => {
    expect(policyWindowBounds('1h', new Date('2026-11-24T20:31:00+02:00')).start.toISOString()).toBe('2026-11-24T18:00:00.000Z');
    // 1970-01-01 was a Thursday: 7-day windows start on Thursdays.
    expect(policyWindowBounds('7d', new Date('2026-11-24T12:00:00Z')).start.toISOString()).toBe('2026-11-19T00:00:00.000Z');
  });
});

describe('JSON Schema export', () => {
  it('is produced and names every fact and action', () => {
    const schema = policyDocumentJsonSchema();
    const text = JSON.stringify(schema);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    for (const fact of policyFactNames) expect(text).toContain(`"${fact}"`);
    for (const action of policyActionNames) expect(text).toContain(`"${action}"`);
    expect(text).toContain('"raw_signature"');
    expect(text).toContain('"additionalProperties":false');
    expect(text).toContain('PolicyCondition');
  });
});
