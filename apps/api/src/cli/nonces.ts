import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

const usage = `usage:
  npm run nonces -- stranded
      the stranded EVM wallets: a nonce below their waiting transactions that nothing holds, for
      longer than NONCE_GAP_AFTER_MS (the service fills these by itself every NONCE_GAP_INTERVAL_MS)
  npm run nonces -- repair --wallet WALLET_ID
      fills that wallet's gaps now, whatever their age: a zero-value self-transfer at each missing nonce`;

await main(async () => {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { wallet: { type: 'string' } } });
  switch (positionals[0]) {
    case 'stranded':
      return execute('nonces.stranded', {});
    case 'repair':
      if (!values.wallet) throw new UsageError(`--wallet is required\n${usage}`);
      return execute('nonces.repair', { walletId: values.wallet });
    default:
      throw new UsageError(usage);
  }
});
