import type { RouteExamples } from '../http/route.ts';
import { deadAddress, walletId, walletNotFound } from './example-values.ts';

const r = '8f3c2b1a0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a';
const s = '2b7d4e6f8a0c1e3d5f7a9b0c2d4e6f8a1b3c5d7e9f0a2c4e6b8d0f1a3c5e7b9d';
const evmSignature = {
  summary: 'An EVM signature: r, s and v (27 or 28) in hex',
  value: { signature: `${r}${s}1b` },
};

/** Request and response examples of the signing routes, by operationId (openapi-examples.test.ts validates them). */
export const signingExamples = {
  signMessage: {
    response: { 200: evmSignature, 404: walletNotFound },
    request: { summary: 'A sign-in message', body: { message: 'Sign in to Example App' }, parameters: { walletId } },
  },
  signRaw: {
    response: { 200: evmSignature, 404: walletNotFound },
    request: {
      summary: 'A 32-byte digest (EVM)',
      body: { data: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060' },
      parameters: { walletId },
    },
  },
  signTransaction: {
    response: {
      200: {
        summary: 'The signed EVM transaction (type 2), not broadcast',
        value: {
          signedTransaction: '0x02f86f83014a34048405f5e10085012a05f2008252089400000000000000000000000000000000000dead87071afd498d000080c0',
        },
      },
      404: walletNotFound,
    },
    request: {
      summary: 'A type 2 transfer of 0.002 ETH on Base Sepolia',
      body: {
        transaction: {
          to: deadAddress,
          value: '2000000000000000',
          chainId: 84532,
          type: 2,
          maxFeePerGas: '1500000000',
          maxPriorityFeePerGas: '1000000',
          nonce: 4,
          gasLimit: '21000',
        },
      },
      parameters: { walletId },
    },
  },
  signTypedData: {
    response: { 200: evmSignature, 404: walletNotFound },
    request: {
      summary: 'EIP-712 typed data on Base Sepolia',
      body: {
        typedData: {
          domain: { name: 'Example App', version: '1', chainId: 84532 },
          types: { Greeting: [{ name: 'text', type: 'string' }] },
          primaryType: 'Greeting',
          message: { text: 'Hello' },
        },
      },
      parameters: { walletId },
    },
  },
  signAuthorization: {
    response: {
      200: {
        summary: 'The signed authorization with r, s and yParity',
        value: {
          address: deadAddress,
          chainId: 84532,
          nonce: 4,
          r: `0x${r}`,
          s: `0x${s}`,
          yParity: 0,
          signature: evmSignature.value.signature,
        },
      },
      404: walletNotFound,
    },
    request: {
      summary: 'Delegate to a contract on Base Sepolia',
      body: { authorization: { chainId: 84532, address: deadAddress, nonce: 4 } },
      parameters: { walletId },
    },
  },
} satisfies Record<string, RouteExamples>;
