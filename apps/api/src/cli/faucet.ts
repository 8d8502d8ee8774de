import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { readControlFile } from '../local/control-file.ts';
import { UsageError, execute, main } from './run.ts';

const usage = `usage (local mode, with the service running: the devnets live in its process):
  npm run faucet -- --wallet WALLET_ID --amount 10 [--token usdc]`;

await main(async () => {
  const { values } = parseArgs({ options: { wallet: { type: 'string' }, amount: { type: 'string' }, token: { type: 'string' } } });
  if (!values.wallet || !values.amount) throw new UsageError(usage);
  const config = loadConfig();
  if (config.appEnv !== 'local' || !readControlFile(config.dataDir)) {
    throw new UsageError(`the faucet needs the local service running (npm start)\n${usage}`);
  }
  return execute('faucet.fund', { walletId: values.wallet, amount: values.amount, token: values.token ?? 'native' });
});
