/**
 * The signer process: configuration, local credentials (local mode), the store, the handlers, the
 * mTLS listener. Prints one JSON line {"msg":"wallet signer listening","address":...} on stdout
 * when it accepts requests (the supervisor waits for it). SIGTERM/SIGINT close the listener
 * (requests in flight finish, 5 s at most), then the store. With SIGNER_EXIT_WITH_PARENT=1 it also
 * exits when its stdin closes or its parent process changes (the supervising process died, even
 * by SIGKILL), so no signer outlives the process that started it.
 *
 * An uncaught error is logged by name and first stack frame only (its message may quote key
 * material) and ends the process with status 1; a configuration refusal prints its reasons (which
 * name variables and files, never values) and ends it with status 78.
 */
import { readFileSync } from 'node:fs';
import { secp256k1Build } from '@wallet/domain';
import { presigningNodeFlags } from '../scripts/node-flags.mjs';
import { pointMultiplyBuild } from '@wallet/threshold-ecdsa';
import { loadSignerConfig, type SignerConfig } from './config/config.ts';
import { assertPrivateFile, ensureLocalSignerCredentials } from './config/credentials.ts';
import { createSignerHandlers } from './handlers/index.ts';
import { createSignerLimits } from './limits/limits.ts';
import { createDemoHandlers } from './server/demo-handlers.ts';
import { createLogger } from './server/logger.ts';
import { loggableError, startSignerServer } from './server/server.ts';
import { StoreLockedError } from './store/lock.ts';
import { openSignerStore } from './store/store.ts';
import { READY_MESSAGE } from './transport/protocol.ts';

const EXIT_CONFIG = 78;
/** Another live signer holds this store (EX_TEMPFAIL): the supervisor waits for it instead of failing. */
const EXIT_STORE_BUSY = 75;

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

async function main(): Promise<void> {
  let config: SignerConfig;
  try {
    config = loadSignerConfig(process.env);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ level: 'fatal', time: new Date().toISOString(), msg: 'signer configuration refused', reason: (error as Error).message })}\n`);
    process.exit(EXIT_CONFIG);
  }
  const logger = createLogger({ level: config.logLevel, base: { service: 'wallet-signer', pid: process.pid } });
  const fatal = (what: string) => (error: unknown) => {
    logger.error({ ...loggableError(error) }, what);
    process.exit(1);
  };
  process.on('uncaughtException', fatal('signer uncaught exception'));
  process.on('unhandledRejection', fatal('signer unhandled rejection'));

  if (config.localCredentialsDir) {
    const credentials = ensureLocalSignerCredentials(config.localCredentialsDir);
    if (credentials.created) logger.info({ dir: credentials.dir }, 'generated local signer TLS credentials (the CA key was not kept)');
  }
  assertPrivateFile(config.tls.keyFile, 'SIGNER_TLS_KEY');
  const tls = { ca: readFileSync(config.tls.caFile, 'utf8'), cert: readFileSync(config.tls.certFile, 'utf8'), key: readFileSync(config.tls.keyFile, 'utf8') };

  const store = await openSignerStore(config.signerDataDir, { logger }).catch((error: unknown) => {
    if (!(error instanceof StoreLockedError)) throw error;
    logger.info({ dir: config.signerDataDir }, 'another signer serves this store; leaving it to that one');
    process.exit(EXIT_STORE_BUSY);
  });
  const verification = await store.verifyLog();
  if (!verification.ok) {
    // Reported, never repaired: an operator decides (see README, "Signature log").
    logger.error({ ...verification }, 'signature log chain is broken: entries were altered or removed');
  }
  const limits = createSignerLimits(config.limits);
  const handlers = {
    ...(config.demoHandlers ? createDemoHandlers() : {}),
    ...(await Promise.resolve(createSignerHandlers({ config, store, limits, logger }))),
  };

  const server = await startSignerServer({
    listen: config.listen,
    tls,
    allowedClientNames: config.allowedClientNames,
    handlers,
    logger,
    version: version(),
    storeStats: () => store.stats(),
  });

  let stopping = false;
  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'wallet signer stopping');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    try {
      await server.close();
      await store.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  if (config.exitWithParent) {
    process.stdin.on('end', () => void shutdown('parent closed stdin'));
    process.stdin.on('close', () => void shutdown('parent closed stdin'));
    process.stdin.on('error', () => void shutdown('parent stdin error'));
    process.stdin.resume();
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) void shutdown('parent process gone');
    }, 500).unref();
  }

  const thresholdEcdsa = pointMultiplyBuild();
  if (thresholdEcdsa !== 'native') {
    logger.warn({ thresholdEcdsa }, "libsecp256k1's native addon did not load: threshold ECDSA's secret-scalar multiplications fall back to a variable-time build (packages/threshold-ecdsa/README.md); do not use threshold custody on this host");
  }
  const missingFlags = presigningNodeFlags.filter((flag) => !process.execArgv.includes(flag));
  if (missingFlags.length > 0) {
    logger.warn({ missingFlags }, `started without node's ${missingFlags.join(' ')}: the threshold presigning threads' garbage is collected at the event loop's priority, which raises signing latency while pools refill (docs/operations.md)`);
  }
  process.stdout.write(`${JSON.stringify({ level: 'info', time: new Date().toISOString(), msg: READY_MESSAGE, address: server.address, pid: process.pid, secp256k1: secp256k1Build(), thresholdEcdsa, methods: Object.keys(handlers) })}\n`);
}

await main();
