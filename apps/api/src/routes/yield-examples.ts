import type { RouteExamples } from '../http/route.ts';
import { walletId, walletNotFound } from './example-values.ts';

const operationId = '3efa7ace-7b96-48a0-a441-2e0aa7e728a6';
/** USDC on Base Sepolia; the pool addresses are placeholders (each deployment configures its own). */
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

const approval = {
  phase: 'approval',
  hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  nonce: 4,
  transactionId: '8cb201b0-d402-4bc0-a957-fcfa2e501cba',
  status: 'confirmed',
  blockNumber: 18734521,
  blockHash: '0x9a1f6c0b8e2d47f3a5c6e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c',
};
const supply = {
  phase: 'action',
  hash: '0x7e2d9c4b1a0f8e3d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170605',
  nonce: 5,
  transactionId: '0d4e7f1a-3b6c-4d9e-8f2a-5b7c9d1e3f50',
  status: 'confirmed',
  blockNumber: 18734524,
  blockHash: '0x2f4e6a8c0b1d3f5a7c9e0b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a3c5e7b9d0f2a',
};
const deposit = {
  id: operationId,
  walletId,
  chainId: 84532,
  marketId: 'poolprov-v3:84532:usdc',
  source: 'poolprov-v3',
  action: 'deposit',
  amount: '1.5',
  status: 'pending',
  transactions: [],
  createdAt: '2026-11-25T07:12:00.000Z',
  updatedAt: '2026-11-25T07:12:00.000Z',
};
const confirmedDeposit = { ...deposit, status: 'confirmed', transactions: [approval, supply], updatedAt: '2026-11-25T07:12:18.000Z' };
const withdrawal = { ...deposit, action: 'withdraw', amount: 'all' };
const depositBody = { marketId: 'poolprov-v3:84532:usdc', amount: '1.5' };

/** Request and response examples of the yield routes, by operationId (openapi-examples.test.ts validates them). */
export const yieldExamples = {
  createYieldDeposit: {
    request: { summary: 'Deposit 1.5 USDC on Base Sepolia', body: depositBody, parameters: { walletId } },
    response: {
      200: { summary: 'The same Idempotency-Key again, once the operation confirmed', value: confirmedDeposit },
      202: { summary: 'Accepted: poll the Location', value: deposit },
      404: walletNotFound,
    },
  },
  createYieldWithdrawal: {
    request: { summary: 'Withdraw the whole position', body: { marketId: 'poolprov-v3:84532:usdc', amount: 'all' }, parameters: { walletId } },
    response: {
      200: { summary: 'The same Idempotency-Key again, once the operation confirmed', value: { ...withdrawal, status: 'confirmed', transactions: [supply], updatedAt: '2026-11-25T07:12:09.000Z' } },
      202: { summary: 'Accepted: poll the Location', value: withdrawal },
      404: walletNotFound,
    },
  },
  listYieldMarkets: {
    request: { summary: "The markets for one of the project's EVM wallets", parameters: { walletId } },
    response: {
      200: {
        summary: 'The Base Sepolia pool-provider market',
        value: {
          markets: [
            {
              id: 'poolprov-v3:84532:usdc',
              chainId: 84532,
              name: 'Pool-provider V3, Base Sepolia',
              testOnly: true,
              asset: { symbol: 'USDC', address: USDC, decimals: 6 },
              source: 'poolprov-v3',
              contracts: { pool: '0x1111111111111111111111111111111111111111', aToken: '0x2222222222222222222222222222222222222222' },
            },
          ],
        },
      },
      404: walletNotFound,
    },
  },
  getYieldOperation: {
    request: { summary: 'One operation', parameters: { walletId, operationId } },
    response: {
      200: { summary: 'A confirmed deposit: the approval, then the supply', value: confirmedDeposit },
      404: walletNotFound,
    },
  },
  cancelYieldOperation: {
    request: { summary: 'Cancel an operation that has signed nothing yet', parameters: { walletId, operationId } },
    response: {
      200: { summary: 'The cancelled operation', value: { ...deposit, status: 'cancelled', updatedAt: '2026-11-25T07:12:02.000Z' } },
      404: walletNotFound,
    },
  },
} satisfies Record<string, RouteExamples>;
