import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

const usage = `usage:
  npm run custody -- convert
      every Ed25519 wallet still split into XOR halves becomes FROST(Ed25519) 2-of-3 (the signer splits
      the key, the API keeps participant 1's share, participant 3's is sealed to the recovery key);
      addresses do not change; idempotent and resumable
  npm run custody -- refresh
      new shares for every wallet at its next epoch (FROST zero-sharing refresh; a new XOR pad for
      secp256k1); the signer refuses the older shares from then on; resumable
  npm run custody -- verify-log
      checks the signer's hash-chained signature log and pairs its entries with the API's audit rows
      of wallet signatures; exit code 1 when the chain is broken or either side has a signature the
      other lacks
convert and refresh print one JSON line: { command, wallets, done, skipped, failed, failures };
verify-log: { ok, chain, walletSignatures, serviceKeySignatures, matched, missingInAudit, missingInLog }.`;

await main(async () => {
  const { positionals } = parseArgs({ allowPositionals: true, options: {} });
  switch (positionals[0]) {
    case 'convert':
      return execute('custody.convert', {});
    case 'refresh':
      return execute('custody.refresh', {});
    case 'verify-log': {
      const report = (await execute('custody.verify-log', {})) as { ok: boolean };
      if (!report.ok) process.exitCode = 1;
      return report;
    }
    default:
      throw new UsageError(usage);
  }
});
