// The Quickstart's transfer in TypeScript with @wallet/client: KEY (the API key), WALLET (a funded EVM
// wallet on the local devnet) and API (the service's /v1 URL) come from the environment.
import { createClient, unwrap, waitForTransaction } from '@wallet/client';

const { KEY, WALLET, API } = process.env;
if (!KEY || !WALLET || !API) throw new Error('set KEY, WALLET and API as the Quickstart does');

const client = createClient({ baseUrl: new URL(API).origin, apiKey: KEY });
// An Idempotency-Key is generated for the POST and reused if the client retries it.
const sent = await unwrap(
  client.POST('/v1/wallets/{walletId}/transfer', {
    params: { path: { walletId: WALLET } },
    body: { chainId: 84532, to: '0x000000000000000000000000000000000000dEaD', value: '1000000000000000' },
  }),
);
const record = await waitForTransaction(client, WALLET, sent.transactionId, { timeoutMs: 60_000 });
console.log(JSON.stringify({ transactionId: record.transactionId, status: record.status, hash: record.hash }));
