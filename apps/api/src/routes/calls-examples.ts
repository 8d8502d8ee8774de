import { encodeFunctionData, erc20Abi } from 'viem';
import type { RouteExamples } from '../http/route.ts';
import { walletId, walletNotFound } from './example-values.ts';

const usdc = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const pool = '0x8bAB6d1b75f19e9eD9fCe8b9BD338844fF79aE27';
const transactionId = '0f2c6a3e-51d4-4f5b-9b8e-6f3c2d1a0b9e';

/** approve(pool, 25 USDC) then a transferFrom the pool makes: the classic two-step, atomic. */
const approveAndDeposit = {
  chainId: 84532,
  calls: [
    { to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [pool, 25_000_000n] }) },
    { to: pool, data: '0x617ba037000000000000000000000000036cbd53842c5426634e7929541ec2318f3dcf7e00000000000000000000000000000000000000000000000000000000017d7840000000000000000000000000575ce9c43325470400f9ad4f1e1c318200000000000000000000000000000000000000000000000000000000000000000000', value: '0' },
  ],
};

/** A sponsored batch as accepted (the worker signs and submits its user operation). */
const acceptedSponsoredBatch = {
  transactionId,
  walletId,
  walletType: 'EVM',
  intentKind: 'calls',
  status: 'pending',
  createdAt: '2026-12-02T14:00:00.000Z',
  chainId: '84532',
  network: null,
  hash: null,
  blockNumber: null,
  blockHash: null,
  failureStage: null,
  failureCode: null,
  failureMessage: null,
  submittedAt: null,
  resolvedAt: null,
  monitoring: { chainOutcome: null, winningHash: null, winningStatus: null },
  executionMode: 'sponsored',
  calls: approveAndDeposit.calls.map((c) => ({ to: c.to, value: '0', data: c.data, selector: c.data.slice(0, 10) })),
  nonce: null,
  stage: 'accepted',
  reviewId: null,
  userOperationHash: null,
  actualGasCost: null,
  autoRetry: { enabled: true, maxFeePerGas: null, attempts: [] },
};

/** Request and response examples of the calls route (openapi-examples.test.ts validates them). */
export const callsExamples = {
  sendCalls: {
    request: { summary: 'Approve 25 USDC and supply them to a lending pool, in one transaction', body: approveAndDeposit, parameters: { walletId } },
    response: {
      200: {
        summary: 'Signed and broadcast: one type 4 transaction carrying the wallet\'s delegation',
        value: {
          signedTransaction: '0x04f9015a83014a3480843b9aca00843b9aca0083030d4094575ce9c43325470400f9ad4f1e1c318280b8e434fcd5be00c0',
          txHash: '0x8f1e4b1c2a3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7',
          transactionId,
          autoRetry: {
            enabled: true,
            maxFeePerGas: '10000000000',
            attempts: [{ hash: '0x8f1e4b1c2a3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7', maxFeePerGas: '1000000000', maxPriorityFeePerGas: '1000000000', sentAt: '2026-12-02T14:00:00.000Z', outcome: 'pending' }],
          },
        },
      },
      202: { summary: 'A sponsored batch, accepted: the paymaster pays its gas', value: acceptedSponsoredBatch },
      400: { summary: 'An address that is not one', value: { code: 'INVALID_REQUEST', message: 'Invalid request: calls.1.to: must be a 0x-prefixed 20-byte EVM address', details: [{ path: 'calls.1.to', message: 'must be a 0x-prefixed 20-byte EVM address' }] } },
      403: {
        summary: 'A policy allows the approve but not the call after it',
        value: {
          code: 'POLICY_DENIED',
          message: 'Call 1 of the batch: Denied by policy contracts version 1, rule only-usdc: rule-matched',
          reason: 'rule-matched',
          deniedBy: [{ reason: 'rule-matched', policyId: 'contracts', policyVersion: '1', ruleId: 'only-usdc' }],
        },
      },
      404: walletNotFound,
      409: { summary: 'No delegate contract on this chain', value: { code: 'CALLS_UNAVAILABLE', message: 'No Simple7702Account is deployed at 0xe6Cae83BdE06E4c305530e199D7217f42808555B on chain 84532' } },
      422: {
        summary: 'The second call would revert: nothing signed',
        value: {
          code: 'CALLS_SIMULATION_REVERTED',
          message: 'Call 1 of the batch would revert (ERC20InsufficientAllowance(0x8bAB6d1b75f19e9eD9fCe8b9BD338844fF79aE27, 0, 25000000)); nothing was signed or sent',
          callIndex: 1,
          reason: 'ERC20InsufficientAllowance(0x8bAB6d1b75f19e9eD9fCe8b9BD338844fF79aE27, 0, 25000000)',
          revertData: '0xfb8f41b20000000000000000000000008bab6d1b75f19e9ed9fce8b9bd338844ff79ae2700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000017d7840',
        },
      },
      503: { summary: "The chain's RPC did not answer", value: { code: 'RPC_UNAVAILABLE', message: "The chain's RPC could not be reached; retry later (evm:84532 RPC unavailable: timed out after 10000 ms)" } },
    },
  },
} satisfies Record<string, RouteExamples>;
