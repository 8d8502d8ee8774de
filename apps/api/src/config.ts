import path from 'node:path';
import { z } from 'zod';
import { repoRoot } from '@wallet/db/paths';
import type { ChainEntry } from '@wallet/chains';
// The yield modules alone (not the domain's index): reading the configuration stays light.
import { yieldMarketsJson } from '@wallet/domain/yield/config.ts';
import { defaultYieldExecutionMode, YIELD_EXECUTION_MODES } from '@wallet/domain/yield/execution.ts';
import { CRASH_POINTS } from '@wallet/domain/shared/crash-points.ts';
import { sponsorshipJson } from '@wallet/domain/sponsorship/chain-config.ts';
import { localCaCertFile } from './webhook-listen/paths.ts';

export { repoRoot };

export type AppEnv = 'local' | 'beta' | 'production';

/** Webhook delivery settings (WEBHOOK_*); the defaults are the production values. */
export interface WebhookConfig {
  /** PEM file of extra CA certificates trusted for receivers, added to Node's default roots. */
  caFile: string | undefined;
  /**
   * Local mode only: the CA of `npm run webhooks -- listen` (DATA_DIR/webhook-listen/ca/ca.pem),
   * also trusted, read at delivery time as it may appear after start-up. Undefined in beta and
   * production, which never trust it.
   */
  localCaFile: string | undefined;
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

export class ConfigError extends Error {}

const rpcUrl = z.url({ protocol: /^https?$/ });
const chainSchema = z.discriminatedUnion('type', [
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
]);

/** A whole number of `unit`, at least `min`. */
const wholeNumber = (unit: string, min: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number of ${unit}`)
    .transform(Number)
    .refine((n) => n >= min, `must be at least ${min} ${unit}`);

const milliseconds = z
  .string()
  .regex(/^\d+$/, 'must be a positive whole number of milliseconds')
  .transform(Number)
  .refine((n) => n >= 1, 'must be a positive whole number of milliseconds');
const port = z
  .string()
  .regex(/^\d+$/, 'must be a TCP port number')
  .transform(Number)
  .refine((n) => n <= 65535, 'must be a TCP port number');
const onOff = z.enum(['on', 'off'], 'must be on or off').transform((v) => v === 'on');
const chainsJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of chains' });
      return z.NEVER;
    }
  })
  .pipe(z.array(chainSchema));

/** Every environment variable the service reads; an empty value counts as unset. */
const envSchema = z
  .object({
    APP_ENV: z.enum(['local', 'beta', 'production'], 'must be local, beta or production').default('local'),
    HOST: z.string().default('127.0.0.1'),
    PORT: port.default(8080),
    DATA_DIR: z.string().default('.data'),
    DATABASE_URL: z.string().optional(),
    REDIS_URL: z.string().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: z.enum(['true', 'false'], 'must be true or false').default('false').transform((v) => v === 'true'),
    AUTH_CACHE_MS: z.string().regex(/^\d+$/, 'must be a whole number of milliseconds').transform(Number).default(2000),
    CHAINS: chainsJson.default([]),
    YIELD_MARKETS: yieldMarketsJson.default([]),
    SPONSORSHIP: sponsorshipJson.default([]),
    YIELD_EXECUTION: z.enum(YIELD_EXECUTION_MODES, 'must be enabled, withdrawals-only or disabled').optional(),
    API_KEKS: z.string().optional(),
    // The share KEKs are the signer's: present here, they are refused (see superRefine).
    USER_SHARE_KEKS: z.string().optional(),
    SERVICE_SHARE_KEKS: z.string().optional(),
    SIGNER_URL: z.string().optional(),
    SIGNER_CLIENT_TLS_CA: z.string().optional(),
    SIGNER_CLIENT_TLS_CERT: z.string().optional(),
    SIGNER_CLIENT_TLS_KEY: z.string().optional(),
    SIGNER_TIMEOUT_MS: milliseconds.default(10_000),
    /** The offline recovery public key (PEM, X25519) FROST participant 3's shares are sealed to; local mode generates DATA_DIR/recovery. */
    RECOVERY_PUBLIC_KEY_FILE: z.string().optional(),
    LOCAL_DEVNETS: onOff.default(true),
    WORKERS: onOff.default(true),
    CONSOLE: onOff.default(true),
    CONSOLE_PORT: port.default(3000),
    WEBHOOK_CA_FILE: z.string().optional(),
    WEBHOOK_TIMEOUT_MS: milliseconds.default(10_000),
    WEBHOOK_RETRY_BASE_MS: milliseconds.optional(),
    WEBHOOK_RETRY_MAX_MS: milliseconds.optional(),
    WEBHOOK_POLL_MS: milliseconds.default(100),
    WEBHOOK_LEASE_MS: milliseconds.optional(),
    IDEMPOTENCY_LEASE_MS: milliseconds.default(30_000),
    NONCE_RESERVATION_MS: milliseconds.optional(),
    NONCE_GAP_AFTER_MS: milliseconds.default(60_000),
    NONCE_GAP_INTERVAL_MS: milliseconds.default(15_000),
    AUTO_RETRY_AFTER_BLOCKS: wholeNumber('blocks', 1).default(3),
    AUTO_RETRY_MAX_ATTEMPTS: wholeNumber('attempts', 2).default(5),
    CRASH_AT: z.enum(CRASH_POINTS, `must be one of ${CRASH_POINTS.join(', ')}`).optional(),
    CUSTODY_CRASH_AT: z
      .string()
      .regex(/^(before-write|after-write|dkls-presigned|dkls-final):[1-9]\d*$/, 'must be before-write:<n>, after-write:<n>, dkls-presigned:<n> or dkls-final:<n>')
      .transform((text) => ({ step: text.split(':')[0] as 'before-write' | 'after-write' | 'dkls-presigned' | 'dkls-final', n: Number(text.split(':')[1]) }))
      .optional(),
    PRESIGN_POOL_PER_WALLET: wholeNumber('presignatures', 0).refine((n) => n <= 64, 'must be at most 64 presignatures').default(4),
    PRESIGN_POOL_TOTAL: wholeNumber('presignatures', 1).refine((n) => n <= 100_000, 'must be at most 100000 presignatures').default(256),
    PRESIGN_POOL_MAX_AGE_SECONDS: wholeNumber('seconds', 60).refine((n) => n <= 86_400, 'must be at most 86400 seconds').default(540),
    YIELD_LEASE_MS: milliseconds.default(15_000),
    SPONSORED_LEASE_MS: milliseconds.default(15_000),
    MONITOR_LEASE_MS: milliseconds.default(60_000),
    PRUNE_INTERVAL_MS: milliseconds.default(60_000),
    REQUEST_LOG: onOff.default(true),
    REQUEST_LOG_RETENTION_DAYS: z
      .string()
      .regex(/^\d+$/, 'must be a positive whole number of days')
      .transform(Number)
      .refine((n) => n >= 1, 'must be a positive whole number of days')
      .default(30),
  })
  .superRefine((env, ctx) => {
    if (env.APP_ENV !== 'local') {
      const missing = (['DATABASE_URL', 'API_KEKS', 'SIGNER_URL', 'SIGNER_CLIENT_TLS_CA', 'SIGNER_CLIENT_TLS_CERT', 'SIGNER_CLIENT_TLS_KEY', 'RECOVERY_PUBLIC_KEY_FILE'] as const).filter((name) => !env[name]);
      if (missing.length > 0) {
        ctx.addIssue({ code: 'custom', path: ['APP_ENV'], message: `${env.APP_ENV} needs ${missing.join(', ')}; refusing to start without them` });
      }
    }
    for (const name of ['USER_SHARE_KEKS', 'SERVICE_SHARE_KEKS'] as const) {
      if (env[name]) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'opens wallet key shares and belongs to the signer process only; remove it from the API\'s environment (the API seals its own secrets under API_KEKS)' });
      }
    }
    const evmChains = new Set(env.CHAINS.flatMap((chain) => (chain.type === 'EVM' ? [chain.chainId] : [])));
    env.SPONSORSHIP.forEach((entry, index) => {
      if (!evmChains.has(entry.chainId)) ctx.addIssue({ code: 'custom', path: ['SPONSORSHIP', index, 'chainId'], message: `${entry.chainId} is not an EVM chain of CHAINS` });
    });
    for (const name of ['CRASH_AT', 'CUSTODY_CRASH_AT'] as const) {
      if (env[name] !== undefined && env.APP_ENV === 'production') {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is a fault-injection switch for tests; refusing to start production with it' });
      }
    }
    if (env.NONCE_RESERVATION_MS !== undefined && env.NONCE_RESERVATION_MS >= env.IDEMPOTENCY_LEASE_MS) {
      ctx.addIssue({ code: 'custom', path: ['NONCE_RESERVATION_MS'], message: 'must be shorter than IDEMPOTENCY_LEASE_MS, so a retried request finds its lapsed nonce free again' });
    }
    if (env.WEBHOOK_LEASE_MS !== undefined && env.WEBHOOK_LEASE_MS < 2 * env.WEBHOOK_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_LEASE_MS'], message: 'must be at least twice WEBHOOK_TIMEOUT_MS' });
    }
    if (env.WEBHOOK_LEASE_MS === undefined && env.WEBHOOK_TIMEOUT_MS * 2 > 60_000) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_TIMEOUT_MS'], message: 'above 30000 needs WEBHOOK_LEASE_MS of at least twice it' });
    }
  });

function configFrom(env: z.output<typeof envSchema>) {
  return {
    appEnv: env.APP_ENV as AppEnv,
    host: env.HOST,
    port: env.PORT,
    dataDir: path.resolve(repoRoot, env.DATA_DIR),
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    /** How long an authenticated API key is reused before the database is read again (other processes' revocations). */
    authCacheMs: env.AUTH_CACHE_MS,
    /**
     * The API's own key-encryption keys (webhook secrets; never a KEK that opens a key share): API_KEKS,
     * else in local mode a generated key file in DATA_DIR/api.
     */
    kekSource: (env.API_KEKS || env.APP_ENV !== 'local' ? 'env' : 'file') as 'file' | 'env',
    /** The KEK variable itself (parsed by the custody module). */
    kekEnv: { API_KEKS: env.API_KEKS },
    /** RECOVERY_PUBLIC_KEY_FILE, resolved; undefined in local mode without it (DATA_DIR/recovery is generated, shared with the signer). */
    recoveryPublicKeyFile: env.RECOVERY_PUBLIC_KEY_FILE ? path.resolve(repoRoot, env.RECOVERY_PUBLIC_KEY_FILE) : undefined,
    /**
     * The signer process that holds every key (docs/custody.md): SIGNER_URL with the client's TLS
     * files; in local mode without SIGNER_URL, the service starts its own on the Unix socket in
     * DATA_DIR/signer with generated credentials, and starts it again if it dies.
     */
    signer: {
      env: {
        SIGNER_URL: env.SIGNER_URL,
        SIGNER_CLIENT_TLS_CA: env.SIGNER_CLIENT_TLS_CA,
        SIGNER_CLIENT_TLS_CERT: env.SIGNER_CLIENT_TLS_CERT,
        SIGNER_CLIENT_TLS_KEY: env.SIGNER_CLIENT_TLS_KEY,
      },
      supervised: env.APP_ENV === 'local' && !env.SIGNER_URL,
      timeoutMs: env.SIGNER_TIMEOUT_MS,
    },
    /** Chains from CHAINS (JSON array); local mode adds its devnets. */
    chains: env.CHAINS as ChainEntry[],
    yield: {
      /** Markets with their addresses from YIELD_MARKETS (JSON array); local mode adds the devnet's 84532 markets. */
      markets: env.YIELD_MARKETS,
      /** YIELD_EXECUTION (default: enabled in local, disabled in beta and production). */
      execution: env.YIELD_EXECUTION ?? defaultYieldExecutionMode(env.APP_ENV),
      /**
       * How long the yield worker holds an operation while advancing it (YIELD_LEASE_MS, default
       * 15000): after a crash, another process continues it once this has passed.
       */
      leaseMs: env.YIELD_LEASE_MS,
    },
    /**
     * Gas sponsorship per EVM chain from SPONSORSHIP (JSON array; docs/sponsorship.md); local mode
     * adds the devnet's entry once its contracts are deployed at start.
     */
    sponsorship: env.SPONSORSHIP,
    /**
     * How long the sponsored worker holds a record while it signs or submits it (SPONSORED_LEASE_MS,
     * default 15000): after a crash, another process continues it once this has passed.
     */
    sponsoredLeaseMs: env.SPONSORED_LEASE_MS,
    /** Local mode only: start anvil and the LiteSVM devnet (LOCAL_DEVNETS, default on). */
    localDevnets: env.APP_ENV === 'local' && env.LOCAL_DEVNETS,
    /** Background workers in this process (WORKERS, default on). */
    workers: env.WORKERS,
    /** Lease of a running idempotent request, renewed while it runs (IDEMPOTENCY_LEASE_MS, default 30000). */
    idempotencyLeaseMs: env.IDEMPOTENCY_LEASE_MS,
    /**
     * How long a transfer's reserved nonce waits for its record (NONCE_RESERVATION_MS, default two
     * thirds of IDEMPOTENCY_LEASE_MS): a process that dies in between leaves the nonce to the next
     * transfer after this, and a retry of the same request (after the key's lease) finds it free.
     */
    nonceReservationMs: env.NONCE_RESERVATION_MS ?? Math.floor((env.IDEMPOTENCY_LEASE_MS * 2) / 3),
    /**
     * Stranded wallets: a wallet whose lowest waiting transaction is this old (NONCE_GAP_AFTER_MS,
     * default 60000: past a lapsed reservation and a retried request's Idempotency-Key lease, which
     * take the nonce back themselves) and sits above a nonce nothing holds gets a gap filler; the nonce-gap worker
     * looks every NONCE_GAP_INTERVAL_MS (default 15000), in one process at a time.
     */
    nonceGapAfterMs: env.NONCE_GAP_AFTER_MS,
    nonceGapIntervalMs: env.NONCE_GAP_INTERVAL_MS,
    /**
     * Managed automatic retry of EVM transfers (docs/transfers.md): an attempt without a receipt
     * for AUTO_RETRY_AFTER_BLOCKS blocks (default 3) and priced under the base fee is replaced, up to
     * AUTO_RETRY_MAX_ATTEMPTS attempts in all (default 5, the original included).
     */
    autoRetry: { afterBlocks: env.AUTO_RETRY_AFTER_BLOCKS, maxAttempts: env.AUTO_RETRY_MAX_ATTEMPTS },
    /**
     * How long a monitor run holds the records it checks (MONITOR_LEASE_MS, default 60000); after a
     * crash another process checks them once this has passed.
     */
    monitorLeaseMs: env.MONITOR_LEASE_MS,
    /** Tests only (CRASH_AT, refused in production): the broadcast step at which the process kills itself. */
    crashAt: env.CRASH_AT,
    /**
     * Tests only (CUSTODY_CRASH_AT=<step>:<n>, refused in production): `npm run custody -- convert |
     * refresh` SIGKILLs the process doing the work when the n-th wallet it handles reaches `before-write`
     * (its new shares made and checked, not written) or `after-write` (written, the signer's epoch not committed);
     * the API process itself in its n-th threshold ECDSA signature at `dkls-presigned` (the presignature
     * made, the final exchange not sent) or `dkls-final` (the signer's final message received, the signature not combined).
     */
    custodyCrashAt: env.CUSTODY_CRASH_AT,
    /**
     * Threshold ECDSA presignatures made ahead per active wallet (PRESIGN_POOL_PER_WALLET, default 4;
     * 0: none, every signature on demand), in all (PRESIGN_POOL_TOTAL, 256), and how long each is kept
     * (PRESIGN_POOL_MAX_AGE_SECONDS, 540). The signer keeps its half under its own bounds
     * (SIGNER_PRESIGN_POOL_*): these must stay at or below them, the age below the signer's.
     */
    presignPool: { perWallet: env.PRESIGN_POOL_PER_WALLET, total: env.PRESIGN_POOL_TOTAL, maxAgeMs: env.PRESIGN_POOL_MAX_AGE_SECONDS * 1000 },
    /** How often the pruning worker deletes expired idempotency records and rate-limit counters (PRUNE_INTERVAL_MS, default 60000). */
    pruneIntervalMs: env.PRUNE_INTERVAL_MS,
    requestLog: {
      /** Every /v1 request that changed state or was refused, written in batches (REQUEST_LOG, default on). */
      enabled: env.REQUEST_LOG,
      /** Entries older than this are pruned (REQUEST_LOG_RETENTION_DAYS, default 30). */
      retentionDays: env.REQUEST_LOG_RETENTION_DAYS,
    },
    /** Local mode only: the admin console next to the API (CONSOLE, CONSOLE_PORT). */
    console: { enabled: env.APP_ENV === 'local' && env.CONSOLE, port: env.CONSOLE_PORT },
    webhooks: {
      caFile: env.WEBHOOK_CA_FILE ? path.resolve(repoRoot, env.WEBHOOK_CA_FILE) : undefined,
      localCaFile: env.APP_ENV === 'local' ? localCaCertFile(path.resolve(repoRoot, env.DATA_DIR)) : undefined,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: env.WEBHOOK_RETRY_MAX_MS,
      pollMs: env.WEBHOOK_POLL_MS,
      leaseMs: env.WEBHOOK_LEASE_MS,
      allowPrivateAddresses: env.APP_ENV !== 'production',
    } satisfies WebhookConfig,
  };
}

export type Config = ReturnType<typeof configFrom>;

/**
 * Reads the configuration from the environment through one schema; beta and production refuse to
 * start without what they need and say what is missing. Throws ConfigError naming the variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(set);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${issue.path.map(String).join('.')}: ${issue.message}`);
  }
  return configFrom(parsed.data);
}
