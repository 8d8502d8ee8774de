import { encodeFunctionData, erc20Abi } from 'viem';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from './compile.ts';
import { parsePolicyDocument } from './document.ts';
import { batchCharges, judgeBatch, prepareCalls } from './batch.ts';
import type { EvaluationContext } from './evaluate.ts';
import { meterKeyId } from './evaluation-types.ts';
import { signingContext } from './request-facts-testing.ts';

const WALLET = '0x1000000000000000000000000000000000000001';
const TOKEN = '0x036cbd53842c5426634e7929541ec2318f3dcf7e';
const POOL = '0x8bab6d1b75f19e9ed9fce8b9bd338844ff79ae27';
const A = '0x2222222222222222222222222222222222222222';
const transfer = (to: string, amount: bigint) => ({ to: TOKEN, value: '0', data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as `0x${string}`, amount] }) });
const approve = (amount: bigint) => ({ to: TOKEN, value: '0', data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [POOL, amount] }) });

function policy(rules: unknown[]) {
  const parsed = parsePolicyDocument({ id: 'p', schemaVersion: 'permissions.policy.v1', version: '1', selector: { walletType: 'EVM' }, metadata: { productMode: 'guardrail' }, rules });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return compilePolicy('p', 1, parsed.document);
}

function batch(calls: { to: string; value: string; data: string }[]) {
  const base = signingContext('EVM', WALLET, 'transaction', { transaction: { to: WALLET, value: '0', chainId: 84532, nonce: 0, gasLimit: '1', maxFeePerGas: '1', maxPriorityFeePerGas: '1' } });
  return { ...base, action: 'wallet.sign.calls', chain: { walletType: 'EVM' as const, chainId: '84532', network: null }, calls };
}

describe('policies on a batch of calls', () => {
  const evaluation: EvaluationContext = { projectId: 'p1', environment: 'development', now: new Date('2026-12-02T12:00:00Z') };

  it('judges each call as a transaction to its target: one denied call denies the batch', () => {
    const onlyApprove = policy([{ id: 'approve-only', effect: 'deny', actions: 'all', condition: { not: { fact: 'request.function.selector', op: 'in', value: ['0x095ea7b3'] } } }]);
    const calls = prepareCalls([onlyApprove], batch([approve(5n), transfer(A, 1n)]), evaluation);
    expect(calls.map((c) => [c.facts.action, c.facts.facts['request.function.selector']])).toEqual([
      ['sign_transaction', '0x095ea7b3'],
      ['sign_transaction', '0xa9059cbb'],
    ]);
    const judged = judgeBatch(calls, new Map(), evaluation, { permissionsAreOn: true });
    expect(judged.perCall.map((e) => e.allowed)).toEqual([true, false]);
    expect(judged).toMatchObject({ firstDenied: 1, result: { allowed: false, deniedBy: [{ policyId: 'p', ruleId: 'approve-only', reason: 'rule-matched' }] } });
  });

  it('charges the batch once with the sum of its token transfers, and judges every call on the batch total', () => {
    const cap = policy([{ id: 'cap', effect: 'deny', actions: 'all', condition: { aggregate: { meter: 'spend.token', asset: TOKEN, window: '1d' }, op: 'gt', value: '10' } }]);
    const calls = prepareCalls([cap], batch([transfer(A, 3n), approve(100n), transfer(A, 4n)]), evaluation);
    const charges = batchCharges(calls);
    expect(charges.map((c) => [c.key.asset, c.amount])).toEqual([[TOKEN, 7n]]);
    const id = meterKeyId(charges[0]!.key);
    // 3 spent before: 3 + 7 = 10 fits; 4 spent: 11 does not, though each call alone (4 + 3, 4 + 4) would.
    expect(judgeBatch(calls, new Map([[id, 3n]]), evaluation, { permissionsAreOn: true }).result.allowed).toBe(true);
    const over = judgeBatch(calls, new Map([[id, 4n]]), evaluation, { permissionsAreOn: true });
    expect(over.result.allowed).toBe(false);
    expect(over.result.deniedBy[0]).toMatchObject({ reason: 'spend-limit-exceeded' });
    // The decision holds while the meter's total (before the batch) stays at most 3.
    expect(judgeBatch(calls, new Map([[id, 0n]]), evaluation, { permissionsAreOn: true }).bounds.get(id)).toEqual({ min: null, max: 3n });
  });
});
