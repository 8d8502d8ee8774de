import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const production = { APP_ENV: 'production', DATABASE_URL: 'postgresql://db/x', API_KEKS: 'a:k', SIGNER_URL: 'https://signer.internal:7443', SIGNER_CLIENT_TLS_CA: '/etc/signer/ca.pem', SIGNER_CLIENT_TLS_CERT: '/etc/signer/api.pem', SIGNER_CLIENT_TLS_KEY: '/etc/signer/api-key.pem', RECOVERY_PUBLIC_KEY_FILE: '/etc/wallet/recovery-public.pem' };

describe('loadConfig', () => {
  it('has local defaults and treats empty values as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', PORT: '', CONSOLE: '' });
    expect(config).toMatchObject({
      appEnv: 'local',
      host: '127.0.0.1',
      port: 8080,
      databaseUrl: undefined,
      kekSource: 'file',
      localDevnets: true,
      workers: true,
      console: { enabled: true, port: 3000 },
      chains: [],
      webhooks: { timeoutMs: 10_000, pollMs: 100, allowPrivateAddresses: true },
      idempotencyLeaseMs: 30_000,
      pruneIntervalMs: 60_000,
      requestLog: { enabled: true, retentionDays: 30 },
    });
  });

  it('reads every switch the process uses from the one schema', () => {
    const config = loadConfig({ LOCAL_DEVNETS: 'off', WORKERS: 'off', CONSOLE: 'off', CONSOLE_PORT: '3100', TRUST_PROXY: 'true', AUTH_CACHE_MS: '0', IDEMPOTENCY_LEASE_MS: '1500', PRUNE_INTERVAL_MS: '500' });
    expect(config).toMatchObject({ localDevnets: false, workers: false, console: { enabled: false, port: 3100 }, trustProxy: true, authCacheMs: 0, idempotencyLeaseMs: 1500, nonceReservationMs: 1000, pruneIntervalMs: 500 });
    expect(loadConfig({ REQUEST_LOG: 'off', REQUEST_LOG_RETENTION_DAYS: '7' }).requestLog).toEqual({ enabled: false, retentionDays: 7 });
    // Devnets and the console are local conveniences only.
    expect(loadConfig(production)).toMatchObject({ localDevnets: false, console: { enabled: false }, kekSource: 'env', webhooks: { allowPrivateAddresses: false } });
  });

  it('reads the yield markets and the execution switch, off by default outside local mode', () => {
    const pool = { id: 'poolprov-v3:8453:usdc', usdc: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', pool: `0x${'a'.repeat(40)}`, aToken: `0x${'b'.repeat(40)}` };
    expect(loadConfig({}).yield).toEqual({ markets: [], execution: 'enabled', leaseMs: 15_000 });
    expect(loadConfig({ ...production, YIELD_MARKETS: JSON.stringify([pool]) }).yield).toEqual({
      markets: [{ id: pool.id, usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', pool: getAddress(pool.pool), aToken: getAddress(pool.aToken) }],
      execution: 'disabled',
      leaseMs: 15_000,
    });
    expect(loadConfig({ ...production, YIELD_EXECUTION: 'withdrawals-only' }).yield.execution).toBe('withdrawals-only');
    expect(loadConfig({ YIELD_LEASE_MS: '2000' }).yield.leaseMs).toBe(2_000);
  });

  it('reads SPONSORSHIP per EVM chain of CHAINS with the canonical defaults, checksummed', () => {
    const token = '0x036cbd53842c5426634e7929541ec2318f3dcf7e';
    const paymaster = `0x${'a'.repeat(40)}`;
    const env = {
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: 8453, rpcUrl: 'http://127.0.0.1:9/' }, { type: 'EVM', chainId: 1, rpcUrl: 'http://127.0.0.1:9/' }]),
      SPONSORSHIP: JSON.stringify([
        { chainId: 8453, paymaster, tokens: [token] },
        { chainId: 1, paymaster, tokens: [token], submission: 'bundler', bundlerUrl: 'https://bundler.example/rpc', minDepositWei: '0', minRelayerBalanceWei: '5' },
      ]),
    };
    expect(loadConfig({}).sponsorship).toEqual([]);
    expect(loadConfig(env).sponsorship).toEqual([
      {
        chainId: 8453,
        entryPoint: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
        delegate: '0xe6Cae83BdE06E4c305530e199D7217f42808555B',
        paymaster: getAddress(paymaster),
        tokens: [getAddress(token)],
        contracts: [],
        submission: 'relayer',
        minDepositWei: 5n * 10n ** 16n,
        minRelayerBalanceWei: 10n ** 16n,
      },
      expect.objectContaining({ chainId: 1, submission: 'bundler', bundlerUrl: 'https://bundler.example/rpc', minDepositWei: 0n, minRelayerBalanceWei: 5n }),
    ]);
  });

  const evm8453 = JSON.stringify([{ type: 'EVM', chainId: 8453, rpcUrl: 'http://127.0.0.1:9/' }]);
  const sponsorship = (...entries: unknown[]) => ({ CHAINS: evm8453, SPONSORSHIP: JSON.stringify(entries) });
  const entry = { chainId: 8453, paymaster: `0x${'a'.repeat(40)}`, tokens: [`0x${'b'.repeat(40)}`] };
  it.each([
    [{ SPONSORSHIP: '{' }, 'SPONSORSHIP: must be a JSON array of sponsorship chains'],
    [{ SPONSORSHIP: '{}' }, 'SPONSORSHIP: must be a JSON array of sponsorship chains'],
    [sponsorship({ ...entry, chainId: 1 }), 'SPONSORSHIP.0.chainId: 1 is not an EVM chain of CHAINS'],
    [sponsorship({ ...entry, chainId: '8453' }), 'SPONSORSHIP.0.chainId: must be a positive integer chain id'],
    [sponsorship({ ...entry, paymaster: undefined }), 'SPONSORSHIP.0.paymaster: is required'],
    [sponsorship({ ...entry, paymaster: '0x1234' }), 'SPONSORSHIP.0.paymaster: must be an EVM address (0x and 40 hex digits)'],
    [sponsorship({ ...entry, paymaster: '0xAaAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }), 'SPONSORSHIP.0.paymaster: has an invalid checksum (mixed case)'],
    [sponsorship({ ...entry, entryPoint: `0x${'0'.repeat(40)}` }), 'SPONSORSHIP.0.entryPoint: must not be the zero address'],
    [sponsorship({ ...entry, tokens: [] }), 'SPONSORSHIP.0.tokens: must list at least one token'],
    [sponsorship({ ...entry, tokens: [entry.tokens[0], '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB'] }), 'SPONSORSHIP.0.tokens.1: 0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB is listed twice'],
    [sponsorship({ ...entry, contracts: [entry.tokens[0]] }), `SPONSORSHIP.0.contracts.0: ${getAddress(entry.tokens[0]!)} is listed twice (or is a token)`],
    [sponsorship({ ...entry, submission: 'paymaster' }), 'SPONSORSHIP.0.submission: must be relayer or bundler'],
    [sponsorship({ ...entry, submission: 'bundler' }), 'SPONSORSHIP.0.bundlerUrl: is required with submission bundler'],
    [sponsorship({ ...entry, bundlerUrl: 'https://b.example' }), 'SPONSORSHIP.0.bundlerUrl: is only for submission bundler (relayer submits itself)'],
    [sponsorship({ ...entry, submission: 'bundler', bundlerUrl: 'ws://b.example' }), 'SPONSORSHIP.0.bundlerUrl: must be an http(s) URL'],
    [sponsorship({ ...entry, minDepositWei: 1000 }), 'SPONSORSHIP.0.minDepositWei: must be an amount of wei as a decimal string'],
    [sponsorship({ ...entry, minRelayerBalanceWei: '-1' }), 'SPONSORSHIP.0.minRelayerBalanceWei: must be an amount of wei as a decimal string'],
    [sponsorship({ ...entry, gasCap: '1' }), 'SPONSORSHIP.0: unknown field(s) gasCap'],
    [sponsorship(entry, entry), 'SPONSORSHIP.1.chainId: 8453 is listed twice'],
  ])('refuses SPONSORSHIP %j naming the path', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    [{ APP_ENV: 'prod' }, 'APP_ENV: must be local, beta or production'],
    [{ PORT: '70000' }, 'PORT: must be a TCP port number'],
    [{ PORT: 'eighty' }, 'PORT: must be a TCP port number'],
    [{ WORKERS: 'no' }, 'WORKERS: must be on or off'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY: must be true or false'],
    [{ WEBHOOK_POLL_MS: '0' }, 'WEBHOOK_POLL_MS: must be a positive whole number of milliseconds'],
    [{ IDEMPOTENCY_LEASE_MS: '30s' }, 'IDEMPOTENCY_LEASE_MS: must be a positive whole number of milliseconds'],
    [{ NONCE_RESERVATION_MS: '30000' }, 'NONCE_RESERVATION_MS: must be shorter than IDEMPOTENCY_LEASE_MS, so a retried request finds its lapsed nonce free again'],
    [{ CRASH_AT: 'halfway' }, 'CRASH_AT: must be one of nonce-allocated, signed, record-committed, broadcast'],
    [{ PRUNE_INTERVAL_MS: '0' }, 'PRUNE_INTERVAL_MS: must be a positive whole number of milliseconds'],
    [{ REQUEST_LOG: 'yes' }, 'REQUEST_LOG: must be on or off'],
    [{ REQUEST_LOG_RETENTION_DAYS: '0' }, 'REQUEST_LOG_RETENTION_DAYS: must be a positive whole number of days'],
    [{ REQUEST_LOG_RETENTION_DAYS: '30d' }, 'REQUEST_LOG_RETENTION_DAYS: must be a positive whole number of days'],
    [{ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '6000' }, 'WEBHOOK_LEASE_MS: must be at least twice WEBHOOK_TIMEOUT_MS'],
    [{ WEBHOOK_TIMEOUT_MS: '40000' }, 'WEBHOOK_TIMEOUT_MS: above 30000 needs WEBHOOK_LEASE_MS of at least twice it'],
    [{ CHAINS: '[{' }, 'CHAINS: must be a JSON array of chains'],
    [{ CHAINS: '[{"type":"EVM","chainId":1,"rpcUrl":"ftp://x"}]' }, 'CHAINS.0.rpcUrl'],
    [{ YIELD_MARKETS: '{' }, 'YIELD_MARKETS: must be a JSON array of yield markets'],
    [{ YIELD_MARKETS: '[{"id":"poolprov-v3:8453:usdc","usdc":"0x1","pool":"0x2"}]' }, 'YIELD_MARKETS.0.usdc: must be an EVM address'],
    [{ YIELD_MARKETS: '[{"id":"aave:8453"}]' }, 'YIELD_MARKETS.0.id: must be one of poolprov-v3:1:usdc'],
    [{ YIELD_EXECUTION: 'on' }, 'YIELD_EXECUTION: must be enabled, withdrawals-only or disabled'],
    [
      { ...production, CRASH_AT: 'signed' },
      'CRASH_AT: is a fault-injection switch for tests; refusing to start production with it',
    ],
    [{ APP_ENV: 'beta', DATABASE_URL: 'postgresql://db/x' }, 'APP_ENV: beta needs API_KEKS, SIGNER_URL, SIGNER_CLIENT_TLS_CA, SIGNER_CLIENT_TLS_CERT, SIGNER_CLIENT_TLS_KEY, RECOVERY_PUBLIC_KEY_FILE; refusing to start without them'],
    // The share KEKs open wallet keys: the signer's alone, refused in the API's environment in every mode.
    [{ USER_SHARE_KEKS: 'u:k' }, 'USER_SHARE_KEKS: opens wallet key shares and belongs to the signer process only'],
    [{ ...production, SERVICE_SHARE_KEKS: 's:k' }, 'SERVICE_SHARE_KEKS: opens wallet key shares and belongs to the signer process only'],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
