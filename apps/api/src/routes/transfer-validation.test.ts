import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';

type Case = [name: string, body: Record<string, unknown>, path: string, message?: string];

/** Each transfer rule's 400 names its field in `details`, as every validation error does. */
describe.each(testDatabaseKinds)('transfer validation details (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: string;
  let usdc: string;
  let evm: { id: string; address: string };
  let sol: { id: string; address: string };

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets });
    key = (await app.createKey()).apiKey;
    usdc = (await app.request('GET', '/v1/chains', { key })).body.chains[0].usdc.address;
    const wallet = async (type: string) =>
      (await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `v-${type}`, userIdentifierType: 'CUSTOM_ID' } })).body;
    evm = await wallet('EVM');
    sol = await wallet('SOLANA');
    expect((await app.request('POST', '/v1/local/faucet', { key, body: { walletId: evm.id, amount: '1' } })).status).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  async function expectDetail(route: string, body: unknown, path: string, message?: string) {
    const response = await app.request('POST', route, { key, body });
    const text = `${route} ${JSON.stringify(body)} → ${JSON.stringify(response.body)}`;
    expect(response.status, text).toBe(400);
    expect(response.body.code, text).toBe('INVALID_REQUEST');
    expect(response.body.details, text).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(response.body.message, text).toMatch(new RegExp(`^Invalid request: ${path}: `));
    if (message) expect(response.body.message, text).toBe(message);
  }

  const evmBase = { to: RECIPIENT, value: '1', chainId: EVM_CHAIN };
  const evmCases = (): Case[] => [
    ['chainId missing', { to: RECIPIENT, value: '1' }, 'chainId', 'Invalid request: chainId: required for EVM wallets'],
    ['chain not configured', { ...evmBase, chainId: 999999 }, 'chainId'],
    ['network on EVM', { ...evmBase, network: 'SOLANA_DEVNET' }, 'network', 'Invalid request: network: not allowed for EVM wallets'],
    ['to not an address', { ...evmBase, to: 'not-an-address' }, 'to', 'Invalid request: to: not an EVM address'],
    ['negative value', { ...evmBase, value: '-1' }, 'value', `Invalid request: value: expected a positive integer in base units (wei for ETH, the token's smallest unit for ERC-20) as a decimal string, got "-1"`],
    ['zero value', { ...evmBase, value: '0' }, 'value', `Invalid request: value: expected a positive integer in base units (wei for ETH, the token's smallest unit for ERC-20) as a decimal string, got "0"`],
    ['value in whole tokens', { ...evmBase, value: '1.5' }, 'value', `Invalid request: value: expected a positive integer in base units (wei for ETH, the token's smallest unit for ERC-20) as a decimal string, got "1.5"`],
    ['value a JSON number', { ...evmBase, value: 1000 }, 'value', `Invalid request: value: expected a positive integer in base units (wei for ETH, the token's smallest unit for ERC-20) as a decimal string, got 1000`],
    ['value missing', { to: RECIPIENT, chainId: EVM_CHAIN }, 'value', `Invalid request: value: required: a positive integer in base units (wei for ETH, the token's smallest unit for ERC-20) as a decimal string`],
    ['gasLimit not an integer', { ...evmBase, gasLimit: '21000.5' }, 'gasLimit', 'Invalid request: gasLimit: expected a non-negative integer in gas units as a decimal string, got "21000.5"'],
    ['SPL on EVM', { ...evmBase, kind: 'SPL', tokenAddress: RECIPIENT }, 'kind'],
    ['ERC20 without token', { ...evmBase, kind: 'ERC20' }, 'tokenAddress', 'Invalid request: tokenAddress: required for ERC20 transfers'],
    ['NATIVE with token', { ...evmBase, kind: 'NATIVE', tokenAddress: usdc }, 'tokenAddress', 'Invalid request: tokenAddress: not allowed for NATIVE transfers'],
    ['token not an address', { ...evmBase, tokenAddress: 'nope' }, 'tokenAddress', 'Invalid request: tokenAddress: not an EVM address'],
    ['gasPrice on type 2', { ...evmBase, gasPrice: '1' }, 'gasPrice'],
    ['maxFeePerGas on type 0', { ...evmBase, type: 0, maxFeePerGas: '1' }, 'maxFeePerGas', 'Invalid request: maxFeePerGas: only for type 2; use gasPrice'],
    ['maxPriorityFeePerGas on type 0', { ...evmBase, type: 0, maxPriorityFeePerGas: '1' }, 'maxPriorityFeePerGas'],
    ['priority above the ceiling', { ...evmBase, maxFeePerGas: '10', maxPriorityFeePerGas: '11' }, 'maxPriorityFeePerGas', 'Invalid request: maxPriorityFeePerGas: must not exceed maxFeePerGas'],
    // Only the priority fee given: the ceiling is the node's suggestion, checked in code.
    ['priority above the suggested ceiling', { ...evmBase, maxPriorityFeePerGas: (10n ** 30n).toString() }, 'maxPriorityFeePerGas'],
  ];

  const solBase = () => ({ to: sol.address, value: '1', network: 'SOLANA_DEVNET' });
  const solCases = (): Case[] => [
    ['EVM recipient', { ...solBase(), to: RECIPIENT }, 'to', 'Invalid request: to: not a Solana address'],
    ...(['nonce', 'gasLimit', 'maxFeePerGas', 'maxPriorityFeePerGas', 'gasPrice', 'type'] as const).map(
      (field): Case => [`${field} on Solana`, { ...solBase(), [field]: field === 'nonce' ? 1 : field === 'type' ? 2 : '1' }, field, `Invalid request: ${field}: only for EVM wallets`],
    ),
    ['ERC20 on Solana', { ...solBase(), kind: 'ERC20' }, 'kind'],
    ['SPL without mint', { ...solBase(), kind: 'SPL' }, 'tokenAddress', 'Invalid request: tokenAddress: required for SPL transfers (the mint)'],
    ['NATIVE with mint', { ...solBase(), kind: 'NATIVE', tokenAddress: sol.address }, 'tokenAddress'],
    ['mint not an address', { ...solBase(), tokenAddress: RECIPIENT }, 'tokenAddress', 'Invalid request: tokenAddress: not a Solana address'],
    ['value above u64', { ...solBase(), value: (2n ** 64n).toString() }, 'value', `Invalid request: value: expected at most 18446744073709551615 (a u64) in base units (lamports for SOL, the mint's smallest unit for SPL), got "18446744073709551616"`],
    ['zero value', { ...solBase(), value: '0' }, 'value', `Invalid request: value: expected a positive integer in base units (lamports for SOL, the mint's smallest unit for SPL) as a decimal string, got "0"`],
    ['value in whole tokens', { ...solBase(), value: '0.5' }, 'value', `Invalid request: value: expected a positive integer in base units (lamports for SOL, the mint's smallest unit for SPL) as a decimal string, got "0.5"`],
    ['network not configured', { to: sol.address, value: '1' }, 'network', 'Invalid request: network: SOLANA is not configured in this deployment (see GET /v1/chains)'],
    // Needs the chain: an address that is not a mint.
    ['mint unknown on the network', { ...solBase(), tokenAddress: sol.address }, 'tokenAddress', 'Invalid request: tokenAddress: not an SPL token mint on this network'],
  ];

  it('EVM transfers: each rule names its field', async () => {
    for (const [name, body, path, message] of evmCases()) {
      await expectDetail(`/v1/wallets/${evm.id}/transfer`, body, path, message).catch((error: Error) => {
        throw new Error(`${name}: ${error.message}`);
      });
    }
  });

  it('Solana transfers: each rule names its field', async () => {
    for (const [name, body, path, message] of solCases()) {
      await expectDetail(`/v1/wallets/${sol.id}/transfer`, body, path, message).catch((error: Error) => {
        throw new Error(`${name}: ${error.message}`);
      });
    }
  });

  it('estimate-fee applies the same rules except value > 0; nothing is recorded', async () => {
    for (const [, body, path] of evmCases().filter(([name]) => name !== 'zero value')) await expectDetail(`/v1/wallets/${evm.id}/estimate-fee`, body, path);
    for (const [, body, path] of solCases().filter(([name]) => name !== 'zero value')) await expectDetail(`/v1/wallets/${sol.id}/estimate-fee`, body, path);
    const notAnInteger = `Invalid request: value: expected a non-negative integer in base units (wei for ETH, the token's smallest unit for ERC-20) as a decimal string, got "1.5"`;
    await expectDetail(`/v1/wallets/${evm.id}/estimate-fee`, { ...evmBase, value: '1.5' }, 'value', notAnInteger);
    const zero = await app.request('POST', `/v1/wallets/${evm.id}/estimate-fee`, { key, body: { ...evmBase, value: '0' } });
    expect(zero.status, JSON.stringify(zero.body)).toBe(200);
    for (const w of [evm, sol]) expect((await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key })).body.data).toHaveLength(0);
  });

  it('documents the public transfer and cancel bodies in the OpenAPI document', async () => {
    const openapi = (await app.request('GET', '/v1/openapi.json')).body;
    const requestSchema = (path: string) => {
      const ref: string = openapi.paths[path].post.requestBody.content['application/json'].schema.$ref;
      return { name: ref.replace('#/components/schemas/', ''), schema: openapi.components.schemas[ref.replace('#/components/schemas/', '')] };
    };
    for (const path of ['/v1/wallets/{walletId}/transfer', '/v1/wallets/{walletId}/estimate-fee']) {
      const { name, schema } = requestSchema(path);
      expect(name).toBe('TransferRequest');
      expect(schema.required).toEqual(['to', 'value']);
      expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['chainId', 'tokenAddress', 'gasPrice', 'network']));
    }
    expect(requestSchema('/v1/wallets/{walletId}/transactions/{transactionId}/cancel').name).toBe('CancelTransactionRequest');
  });

  it('cancel: a priority fee above the given ceiling names maxPriorityFeePerGas', async () => {
    const id = '6f1d6d2e-6a53-4a4b-9f55-0b5c3f1f2a11';
    await expectDetail(`/v1/wallets/${evm.id}/transactions/${id}/cancel`, { maxFeePerGas: '10', maxPriorityFeePerGas: '11' }, 'maxPriorityFeePerGas');
  });
});
