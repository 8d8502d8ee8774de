import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { z } from 'zod';
import type { ChainEntry } from '@wallet/chains';

export type AppEnv = 'local' | 'beta' | 'production';

export interface Config {
  appEnv: AppEnv;
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
  trustProxy: boolean;
  /** How long an authenticated API key is reused before the database is read again (other processes' revocations). */
  authCacheMs: number;
  /** Share key-encryption keys from the environment; the local default keeps a generated key file instead. */
  kekSource: 'file' | 'env';
  /** Chains from CHAINS (JSON array); local mode adds its devnets. */
  chains: ChainEntry[];
  webhooks: WebhookConfig;
}

/** Webhook delivery settings (WEBHOOK_*); the defaults are the production values. */
export interface WebhookConfig {
  /** PEM file of extra CA certificates trusted for receivers, added to Node's default roots. */
  caFile: string | undefined;
  /** Per-attempt time-out (WEBHOOK_TIMEOUT_MS, default 10000). */
  timeoutMs: number;
  /** First retry delay and its cap (WEBHOOK_RETRY_BASE_MS default 30000, WEBHOOK_RETRY_MAX_MS default 6 h). */
  retryBaseMs: number | undefined;
  retryMaxMs: number | undefined;
  /** How often an idle worker looks for new events (WEBHOOK_POLL_MS, default 100). */
  pollMs: number;
  /** Endpoint lease (WEBHOOK_LEASE_MS, default 60000; at least twice the time-out). */
  leaseMs: number | undefined;
  /** In production, URLs resolving to loopback, private or link-local addresses are refused. */
  allowPrivateAddresses: boolean;
}

function parseWebhookConfig(env: NodeJS.ProcessEnv, appEnv: AppEnv): WebhookConfig {
  const ms = (name: string, fallback?: number): number | undefined => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    if (!/^\d+$/.test(text) || Number(text) < 1) throw new ConfigError(`${name} must be a positive whole number of milliseconds`);
    return Number(text);
  };
  const timeoutMs = ms('WEBHOOK_TIMEOUT_MS', 10_000)!;
  const leaseMs = ms('WEBHOOK_LEASE_MS');
  if (leaseMs !== undefined && leaseMs < 2 * timeoutMs) throw new ConfigError('WEBHOOK_LEASE_MS must be at least twice WEBHOOK_TIMEOUT_MS');
  if (leaseMs === undefined && timeoutMs * 2 > 60_000) throw new ConfigError('WEBHOOK_TIMEOUT_MS above 30000 needs WEBHOOK_LEASE_MS of at least twice it');
  return {
    caFile: env.WEBHOOK_CA_FILE ? path.resolve(repoRoot, env.WEBHOOK_CA_FILE) : undefined,
    timeoutMs,
    retryBaseMs: ms('WEBHOOK_RETRY_BASE_MS'),
    retryMaxMs: ms('WEBHOOK_RETRY_MAX_MS'),
    pollMs: ms('WEBHOOK_POLL_MS', 100)!,
    leaseMs,
    allowPrivateAddresses: appEnv !== 'production',
  };
}

const rpcUrl = z.url({ protocol: /^https?$/ });
const chainsSchema = z.array(
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('EVM'),
      chainId: z.number().int().positive(),
      rpcUrl,
      name: z.string().optional(),
      nativeSymbol: z.string().optional(),
      usdcAddress: z.string().regex(/^0x[0-9a-fA-F]{40}$/).optional(),
      isDevnet: z.boolean().optional(),
    }),
    z.strictObject({
      type: z.literal('SOLANA'),
      network: z.enum(['SOLANA', 'SOLANA_DEVNET', 'SOLANA_TESTNET']),
      rpcUrl,
      name: z.string().optional(),
      usdcMint: z.string().optional(),
      isDevnet: z.boolean().optional(),
    }),
  ]),
);

function parseChains(text: string | undefined): ChainEntry[] {
  if (!text) return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('CHAINS must be a JSON array of chains');
  }
  const parsed = chainsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`CHAINS: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export class ConfigError extends Error {}

/** Reads the configuration; beta and production refuse to start without what they need and say what is missing. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const appEnv = (env.APP_ENV ?? 'local') as AppEnv;
  if (!['local', 'beta', 'production'].includes(appEnv)) {
    throw new ConfigError(`APP_ENV must be local, beta or production (got ${JSON.stringify(env.APP_ENV)})`);
  }
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('PORT must be a TCP port number');
  if (!/^\d+$/.test(env.AUTH_CACHE_MS ?? '0')) throw new ConfigError('AUTH_CACHE_MS must be a whole number of milliseconds');
  if (appEnv !== 'local') {
    const missing = ['DATABASE_URL', 'USER_SHARE_KEKS', 'SERVICE_SHARE_KEKS'].filter((name) => !env[name]);
    if (missing.length > 0) {
      throw new ConfigError(`APP_ENV=${appEnv} needs ${missing.join(', ')}; refusing to start without them`);
    }
  }
  return {
    appEnv,
    host: env.HOST ?? '127.0.0.1',
    port,
    dataDir: path.resolve(repoRoot, env.DATA_DIR ?? '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: env.TRUST_PROXY === 'true',
    authCacheMs: Number(env.AUTH_CACHE_MS ?? 2000),
    chains: parseChains(env.CHAINS),
    webhooks: parseWebhookConfig(env, appEnv),
    kekSource: env.USER_SHARE_KEKS || env.SERVICE_SHARE_KEKS || appEnv !== 'local' ? 'env' : 'file',
  };
}
