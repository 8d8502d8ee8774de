import type { RouteExamples } from '../http/route.ts';
import { deadAddress, onlyPage, walletId, walletNotFound } from './example-values.ts';

const transactionId = '8cb201b0-d402-4bc0-a957-fcfa2e501cba';
const txHash = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';
const transferBody = { to: deadAddress, value: '2000000000000000', chainId: '84532' };

/** A confirmed native transfer of 0.002 ETH on Base Sepolia (84532). */
const confirmedRecord = {
  transactionId,
  walletId,
  walletType: 'EVM',
  intentKind: 'transfer',
  status: 'confirmed',
  createdAt: '2026-11-25T07:12:00.000Z',
  chainId: '84532',
  network: null,
  to: deadAddress,
  value: '2000000000000000',
  hash: txHash,
  blockNumber: '18734521',
  blockHash: '0x9a1f6c0b8e2d47f3a5c6e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c',
  failureStage: null,
  failureCode: null,
  failureMessage: null,
  submittedAt: '2026-11-25T07:12:00.000Z',
  resolvedAt: '2026-11-25T07:12:06.000Z',
  monitoring: { chainOutcome: 'confirmed', winningHash: txHash, winningStatus: 'confirmed', state: 'confirmed' },
  executionMode: 'legacy',
};

const usdc = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const reviewId = '3f2c1a9e-6b7d-4e8f-9a0b-1c2d3e4f5a6b';

/** A sponsored USDC transfer just accepted (the service pays its gas). */
const acceptedSponsored = {
  transactionId,
  walletId,
  walletType: 'EVM',
  intentKind: 'transfer',
  status: 'pending',
  createdAt: '2026-11-25T07:12:00.000Z',
  chainId: '84532',
  network: null,
  to: deadAddress,
  value: '5000000',
  tokenAddress: usdc,
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
  nonce: null,
  stage: 'accepted',
  reviewId: null,
  userOperationHash: null,
  actualGasCost: null,
  autoRetry: { enabled: true, maxFeePerGas: null, attempts: [] },
};

/** Request and response examples of the transfer and transaction history routes, by operationId (openapi-examples.test.ts validates them). */
export const transactionsExamples = {
  transfer: {
    request: { summary: 'Send 0.002 ETH on Base Sepolia', body: transferBody, parameters: { walletId } },
    response: {
      200: {
        summary: 'Signed and broadcast',
        value: {
          signedTransaction: '0x02f86f83014a34048405f5e10085012a05f2008252089400000000000000000000000000000000000dead87071afd498d000080c0',
          txHash,
          transactionId,
        },
      },
      202: { summary: 'A sponsored USDC transfer, accepted', value: acceptedSponsored },
      404: walletNotFound,
    },
  },
  resumeTransaction: {
    request: { summary: 'Resume a sponsored transfer whose review was approved', body: { reviewId }, parameters: { walletId, transactionId } },
    response: {
      202: { summary: 'Resumed: the worker continues the same operation', value: acceptedSponsored },
      404: walletNotFound,
    },
  },
  estimateFee: {
    request: { summary: 'The fee of sending 0.002 ETH on Base Sepolia', body: transferBody, parameters: { walletId } },
    response: {
      200: {
        summary: 'An EIP-1559 (type 2) estimate',
        value: {
          estimatedFee: '31500000000000',
          transferAmount: '2000000000000000',
          currency: 'ETH',
          gasLimit: '21000',
          maxFeePerGas: '1500000000',
          maxPriorityFeePerGas: '1000000',
          transactionType: 2,
        },
      },
      404: walletNotFound,
    },
  },
  listTransactions: {
    request: { summary: "The wallet's transactions, 20 a page", parameters: { walletId, limit: 20 } },
    response: {
      200: { summary: 'A page of transaction records', value: { data: [confirmedRecord], pagination: onlyPage(20) } },
      404: walletNotFound,
    },
  },
  getTransaction: {
    request: { summary: 'One transaction record', parameters: { walletId, transactionId } },
    response: {
      200: { summary: 'A confirmed transfer', value: { ...confirmedRecord, nonce: 4 } },
      404: walletNotFound,
    },
  },
  cancelTransaction: {
    request: { summary: 'Cancel a pending transaction at the default fees', body: {}, parameters: { walletId, transactionId } },
    response: {
      200: {
        summary: 'The cancellation, broadcast with its own record',
        value: {
          signedTransaction: '0x02f86583014a340484773594008477359400825208947a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b8080c0',
          txHash: '0xd1c3a5e7f9b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4',
          transactionId: '12ea9887-55a1-4a1c-aa6f-1206bd3df70e',
        },
      },
      404: walletNotFound,
    },
  },
} satisfies Record<string, RouteExamples>;
