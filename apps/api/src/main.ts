import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createChainRegistry } from '@wallet/chains';
import { systemClock } from '@wallet/domain';
import type { LocalConsole } from './local/console.ts';
import { LOCAL_EVM_CHAIN_ID } from './local/chain-id.ts';
import { controlRouter } from './local/control.ts';
import { newControlToken, writeControlFile } from './local/control-file.ts';
import { createLogger } from './logger.ts';
import { createServices, monitorOwnerName, openConfiguredDatabase } from './services.ts';
import { ensureSponsorshipKeys } from './custody/sponsorship-keys.ts';
import { startMonitorWorker } from './workers/monitor-worker.ts';
import { startYieldWorker } from './workers/yield-worker.ts';
import { startSponsoredWorker } from './workers/sponsored-worker.ts';
import { startPruneWorker } from './workers/prune-worker.ts';
import { startNonceGapWorker } from './workers/nonce-gap-worker.ts';
import { startPresignPoolWorker } from './workers/presign-pool-worker.ts';
import { answerClientErrorsWithJson } from './http/client-errors.ts';
import { createMetrics } from './http/metrics.ts';
import { startWebhookWorker } from './workers/webhook-worker.ts';
import { startSupervisedSigner } from '@wallet/signer/client';
import { adoptLegacyLocalKeks, legacyLocalKeksPresent } from './custody/legacy-keks.ts';
import { assertApiKeksOpenNoKey } from './custody/api-kek-check.ts';
import { apiKekProvider } from './custody/signer-connection.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger(config.logLevel);
mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
// Local mode brings its own chains unless LOCAL_DEVNETS=off (e.g. for benchmarks of the API alone);
// their code is loaded only then, so other environments never load devnet code. The database
// opens meanwhile.
const opening = openConfiguredDatabase(config);
// Local mode: the signer that holds every key runs beside the API (its own process, restarted when
// it dies); a data directory from before the signer existed hands its share KEKs over first.
const signerStarting = config.signer.supervised
  ? (legacyLocalKeksPresent(config) ? opening.then((db) => adoptLegacyLocalKeks(config, db)) : Promise.resolve()).then(() =>
      startSupervisedSigner({ env: { ...process.env, APP_ENV: config.appEnv, DATA_DIR: config.dataDir, LOG_LEVEL: config.logLevel, SIGNER_EXIT_WITH_PARENT: '1' }, logger }),
    )
  : undefined;
const [devnets, database, supervisedSigner] = await Promise.all([
  config.localDevnets
    ? import('./local/devnets.ts').then(({ startLocalDevnets }) => startLocalDevnets({ otherChains: config.chains, dataDir: config.dataDir, yieldMarkets: true, sponsorship: true }))
    : undefined,
  opening,
  signerStarting,
  // The devnet's sponsor and relayer keys (chain 84532) are read, or created, meanwhile: its sponsorship setup needs them.
  config.localDevnets ? Promise.all([opening, signerStarting]).then(([db]) => ensureSponsorshipKeys(config, db, LOCAL_EVM_CHAIN_ID)) : undefined,
]);
// The API's own KEKs must open no key: those are the signer's (docs/custody.md).
await assertApiKeksOpenNoKey(database, apiKekProvider(config).list?.() ?? []).catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
const services = await createServices(config, { chains: devnets ?? createChainRegistry(config.chains), database, logger });
// Before the monitor starts: a devnet that started fresh (its state lost) takes its unresolved
// records (failed, CHAIN_RESET) and its nonce counters with it.
if (devnets) {
  for (const file of devnets.discardedState) logger.warn({ file }, 'unreadable devnet state file moved aside; that devnet started fresh');
  for (const reset of await devnets.reconcile({ store: services.stores.chainReset, clock: systemClock })) {
    const { walletType, chain, genesisHash, previousGenesisHash, failed, nonceRows } = reset;
    if (previousGenesisHash !== null || failed.length > 0 || nonceRows > 0) {
      logger.warn({ walletType, chain, genesisHash, previousGenesisHash, failedRecords: failed.length, nonceRows }, 'local devnet started fresh: its unresolved records failed with CHAIN_RESET, its nonces reset');
    }
  }
}
// The transaction monitor runs in every API process unless WORKERS=off; leases in the database keep
// several processes on one PostgreSQL from checking the same record at once.
const monitorWorker = config.workers ? startMonitorWorker({ monitor: services.monitor, logger }) : undefined;
// The yield worker likewise (operations are leased; one per wallet and chain runs at a time).
const yieldWorker = config.workers ? startYieldWorker({ runner: services.yieldRunner, logger }) : undefined;
// Sponsored transfers likewise (records are leased by the sponsored worker; the monitor skips them).
const sponsoredWorker = config.workers ? startSponsoredWorker({ runner: services.sponsoredRunner, logger }) : undefined;
// Webhook delivery likewise (endpoint leases keep several processes from sending to one endpoint at once).
const webhookWorker = config.workers ? startWebhookWorker({ delivery: services.webhookDelivery, pollMs: config.webhooks.pollMs, logger }) : undefined;
// Expired idempotency records and old rate-limit counters, by one process at a time (a lease in the database).
const pruneWorker = config.workers
  ? startPruneWorker({ pruner: services.pruner, leases: services.stores.workerLeases, owner: monitorOwnerName(), intervalMs: config.pruneIntervalMs, logger })
  : undefined;
// Stranded wallets (a nonce below their waiting transactions that nothing holds) get gap fillers, by one process at a time.
const metrics = createMetrics();
const nonceGapWorker = config.workers
  ? startNonceGapWorker({ repair: services.nonceGaps, leases: services.stores.workerLeases, owner: monitorOwnerName(), intervalMs: config.nonceGapIntervalMs, metrics, logger })
  : undefined;
// Threshold ECDSA presignatures made ahead for the wallets that signed here recently: this process's own cache, so whatever WORKERS says.
const presignPoolWorker = startPresignPoolWorker({ logger });
// Local mode: the console's first owner, created once while no staff account exists; its
// password is printed here and nowhere else (not in the logs).
if (config.appEnv === 'local') {
  const owner = await services.staff.ensureLocalOwner();
  if (owner) process.stdout.write(`${JSON.stringify({ consoleOwner: { email: owner.email, password: owner.password, partnerId: owner.partnerId } })}\n`);
}
// Local mode: where the devnets answer JSON-RPC and their sponsorship addresses, at every start (the same as GET /v1/local/devnets).
if (services.localDevnets) process.stdout.write(`${JSON.stringify({ devnets: services.localDevnets })}\n`);
const embedded = !config.databaseUrl;
const controlToken = newControlToken();
const app = createApp({
  services,
  logger,
  trustProxy: config.trustProxy,
  secureCookies: config.appEnv !== 'local',
  graphiql: config.appEnv === 'local',
  publicIntrospection: config.appEnv === 'local',
  extraRouters: embedded ? [controlRouter(services, controlToken)] : [],
  metrics,
});

const server = app.listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  removeControlFile = embedded ? writeControlFile(config.dataDir, url, controlToken) : () => undefined;
  logger.info(
    { url, appEnv: config.appEnv, database: services.database.kind, monitor: monitorWorker ? services.monitor.owner : 'off', devnetState: devnets?.stateDir },
    'wallet service listening',
  );
  // Local mode: the console (apps/admin) next to the API, on CONSOLE_PORT (3000); CONSOLE=off skips it.
  if (config.console.enabled && !stopping) {
    void import('./local/console.ts').then(({ startLocalConsole }) => {
      if (!stopping) localConsole = startLocalConsole({ apiUrl: url, host: config.host, port: config.console.port, logger });
    });
  }
});
answerClientErrorsWithJson(server);
server.keepAliveTimeout = 65_000;
let removeControlFile = () => undefined as void;
let localConsole: LocalConsole | undefined;

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  removeControlFile();
  await localConsole?.stop();
  server.close();
  server.closeIdleConnections();
  await monitorWorker?.stop();
  await yieldWorker?.stop();
  await sponsoredWorker?.stop();
  await webhookWorker?.stop();
  await pruneWorker?.stop();
  await nonceGapWorker?.stop();
  await presignPoolWorker.stop();
  await services.close();
  await supervisedSigner?.stop();
  await devnets?.stop();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
