import path from 'node:path';
import {
  createApiKeyService,
  createIdempotency,
  createRateLimiter,
  createChainService,
  createMigrationService,
  createSigningService,
  createUserService,
  createWalletService,
  envKekProvider,
  fileKekProvider,
  systemClock,
  type ChainDirectory,
  type ChainGateways,
  createTransactionService,
  type Clock,
  type LocalFaucet,
} from '@wallet/domain';
import { createRedisRateLimitStore, createStores, openDatabase, type Database } from '@wallet/db';
import type { Config } from './config.ts';

export interface ServiceOptions {
  /** The chains this deployment talks to, and in local mode the devnet faucet. */
  chains?: { directory: ChainDirectory; gateways: ChainGateways; faucet?: LocalFaucet };
  /** An already open database (tests); otherwise one is opened from the configuration. */
  database?: Database;
  clock?: Clock;
}

/** Wires the domain use cases to their stores. REST, the CLI and later tRPC/GraphQL all go through this. */
export async function createServices(config: Config, options: ServiceOptions = {}) {
  const database =
    options.database ??
    (await openDatabase(
      config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: path.join(config.dataDir, 'db') },
    ));
  const clock = options.clock ?? systemClock;
  const stores = createStores(database);
  const keks = config.kekSource === 'env' ? envKekProvider(process.env) : fileKekProvider(config.dataDir);
  const wallets = createWalletService({ wallets: stores.wallets, keks });
  const directory = options.chains?.directory ?? { list: () => [] };
  const gateways = options.chains?.gateways ?? { evm: () => undefined, solana: () => undefined };
  const transactions = createTransactionService({
    store: stores.transactions,
    audit: stores.audit,
    keks,
    gateways,
    directory,
    clock,
    loadWallet: wallets.loadWallet,
    loadWalletWithShares: wallets.loadWalletWithShares,
  });
  const redis = config.redisUrl ? createRedisRateLimitStore(config.redisUrl) : undefined;

  return {
    database,
    stores,
    apiKeys: createApiKeyService({ apiKeys: stores.apiKeys, audit: stores.audit, clock, authCacheMs: config.authCacheMs }),
    wallets,
    signing: createSigningService({ audit: stores.audit, keks, loadWalletWithShares: wallets.loadWalletWithShares, broadcastSigned: transactions.broadcastSigned }),
    transactions,
    gateways,
    migration: createMigrationService({ custody: stores.custody, wallets: stores.wallets, keks, clock, loadWallet: wallets.loadWallet }),
    chains: createChainService({ directory, faucet: options.chains?.faucet, loadWallet: wallets.loadWallet, findWallet: (id) => stores.wallets.findById(id) }),
    localFaucet: options.chains?.faucet,
    users: createUserService({ users: stores.users, custody: stores.custody, keks }),
    rateLimit: createRateLimiter(redis ?? stores.rateLimits, clock),
    runIdempotent: createIdempotency(stores.idempotency, clock),
    async close() {
      await redis?.close();
      if (!options.database) await database.close();
    },
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
