/** Values the examples of several route families share, so the document shows one wallet, user and API key throughout. */
export const walletId = '575ce9c4-3325-4704-a0f9-ad4f1e1c3182';
export const userId = '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be';
export const apiKeyId = '40f137ef-3fb5-465f-afa5-6479c61f76d8';
export const authorizationScopeId = 'org-1';
export const deadAddress = '0x000000000000000000000000000000000000dEaD';

/** The actor of a change made with the example API key (createdBy, updatedBy, decidedBy). */
export const apiKeyActor = { type: 'api_key', id: apiKeyId };

/** Who recorded a revision, when and in which request (the history routes). */
export const recordedByApiKey = {
  createdAt: '2026-11-25T07:12:00.000Z',
  createdBy: apiKeyActor,
  requestId: 'b7e1d2c4-6f3a-4e8b-9c1d-2a5f7e9b0c3d',
};

/** The pagination of a list that fits in one page. */
export function onlyPage(limit: number) {
  return { cursor: null, hasMore: false, limit };
}

export const walletNotFound = { summary: 'No such wallet in this project', value: { code: 'NOT_FOUND', message: 'Wallet not found' } };

export const exampleWallet = {
  id: walletId,
  type: 'EVM',
  scheme: 'DKLS',
  status: 'ready',
  createdAt: '2026-11-25T07:12:00.000Z',
  address: '0xc59Ae5c96bBB7E6eD34103683f1B4873DE89Dd0B',
  publicKey: '0x04aafb10dd802f05b58e7e8a6154fa76f2177aae269e58a358f8332dd45658d22bba6da38a77f5156d86f9555c4291c036791ac60ed4d3d480341bb95d3223b041',
  userIdentifier: 'ada@example.com',
  userIdentifierType: 'EMAIL',
  custodyMode: 'isolated',
};

/** The chain and transfer of a request awaiting approval: 0.002 ETH to the dead address on Base Sepolia. */
export const baseSepoliaTransfer = {
  chain: { walletType: 'EVM', chainId: '84532', network: null },
  transfer: { to: deadAddress, value: '2000000000000000', tokenAddress: null },
};
