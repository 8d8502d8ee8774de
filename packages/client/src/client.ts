import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import { balancesResource, type BalancesResource } from './balances.ts';
import { callsResource, type CallsResource } from './calls.ts';
import type { paths } from './generated/openapi.ts';
import { retryingFetch, type RetryOptions } from './retrying-fetch.ts';

/** The typed client: openapi-fetch over the service's `/v1` routes, plus the resources that wrap a route (`balances`, `calls`). */
export type WalletClient = Client<paths, 'application/json'> & {
  /** `client.balances.get(walletId, { chainId })`: the data, or a thrown `WalletApiError`. */
  balances: BalancesResource;
  /** `client.calls.send(walletId, { chainId, calls })`: a batch run atomically, or a thrown `WalletApiError`. */
  calls: CallsResource;
};

export interface WalletClientOptions extends Omit<ClientOptions, 'baseUrl' | 'fetch'> {
  /** The service's origin, e.g. `https://wallets.example.com` (paths start with `/v1`). */
  baseUrl: string;
  /** The partner's secret API key, sent as `X-API-Key` (use it from a backend only). */
  apiKey: string;
  /** Retries of network failures, 429 and 503 (`{ maxRetries: 0 }` turns them off). */
  retry?: RetryOptions;
  /** The fetch underneath (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * `createClient({ baseUrl, apiKey })`: every call is typed from the OpenAPI document (paths, path
 * and query parameters, bodies, answers and errors) and resolves to `{ data, error, response }`;
 * wrap it in `unwrap(…)` to get the data or a thrown `WalletApiError`.
 */
export function createClient({ baseUrl, apiKey, retry, fetch, ...options }: WalletClientOptions): WalletClient {
  if (!apiKey) throw new TypeError('createClient: apiKey is required');
  const client = createFetchClient<paths, 'application/json'>({ ...options, baseUrl, fetch: retryingFetch({ apiKey, retry, fetch }) });
  return Object.assign(client, { balances: balancesResource(client), calls: callsResource(client) });
}
