import { createPublicClient, http, type PublicClient } from 'viem';

const clients = new Map<string, PublicClient>();

/** One viem public client per RPC URL for the sponsorship reads (no chain needed: they only read and estimate). */
export function readClient(rpcUrl: string): PublicClient {
  let client = clients.get(rpcUrl);
  if (!client) {
    client = createPublicClient({ transport: http(rpcUrl), pollingInterval: 100 });
    clients.set(rpcUrl, client);
  }
  return client;
}
