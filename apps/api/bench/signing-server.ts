/**
 * A service for the signer section's HTTP rows (signer-http.ts): the real services and REST app
 * (no workers, no devnets), signing either with the key joined in this process, as the API did
 * before the signer (BENCH_VAULT=joined: `createLocalKeyVault`, Ed25519 as XOR halves), or through
 * the signer process as `npm start` runs it (BENCH_VAULT=signer: its supervised signer in
 * DATA_DIR/signer). Prints one JSON line { url, apiKey, signerPid } once it listens.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createChainRegistry } from '@wallet/chains';
import { fileKekProvider, SIGNER_KEK_ROLES } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { startSupervisedSigner } from '@wallet/signer/client';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createServices, openConfiguredDatabase } from '../src/services.ts';

const joined = process.env.BENCH_VAULT === 'joined';
const config = loadConfig();
const logger = createLogger(config.logLevel);
mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
const database = await openConfiguredDatabase(config);
const signer = joined
  ? undefined
  : await startSupervisedSigner({
      // Every signature of a row goes to one wallet: the signer's default 600 per wallet and minute would refuse the run.
      env: { ...process.env, APP_ENV: config.appEnv, DATA_DIR: config.dataDir, LOG_LEVEL: config.logLevel, SIGNER_EXIT_WITH_PARENT: '1', SIGNER_MAX_SIGNATURES_PER_WALLET_PER_MINUTE: '100000000' },
      logger,
    });
const vault = joined ? createLocalKeyVault({ keks: fileKekProvider(path.join(config.dataDir, 'joined'), SIGNER_KEK_ROLES), xorEd25519Wallets: true }) : undefined;
const services = await createServices(config, { database, logger, vault, chains: createChainRegistry(config.chains) });
const { apiKey } = await services.apiKeys.create({ partner: `bench-${joined ? 'joined' : 'signer'}`, plan: 'scale', rateLimitPerMinute: 0 });
const app = createApp({ services, logger, trustProxy: false, secureCookies: false, graphiql: false, publicIntrospection: false });
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const signerPid = signer ? Number(readFileSync(path.join(config.dataDir, 'signer', 'signer.lock'), 'utf8')) : null;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, apiKey, signerPid })}\n`);
});
// The bench closes stdin when it ends (or dies): stop, and the supervised signer with this process.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
