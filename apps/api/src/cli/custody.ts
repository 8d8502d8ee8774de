import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

const usage = `usage:
  npm run custody -- convert
      every Ed25519 wallet still split into XOR halves becomes FROST(Ed25519) 2-of-3 (the signer splits
      the key, the API keeps participant 1's share, participant 3's is sealed to the recovery key);
      addresses do not change; idempotent and resumable
  npm run custody -- convert --wallet-id W --mode threshold
      that wallet to threshold custody, once, keeping its address: an EVM or COSMOS wallet becomes DKLs23
      2-of-2 between the API and the signer with an offline recovery share (the signer deals its key, then
      the two run an OT setup; implemented from the paper, not externally audited), an Ed25519 wallet FROST;
      resumable (rerun after any failure); prints { command, walletId, type, address, custodyMode, outcome }
      with outcome converted, or already-threshold when it was
  npm run custody -- convert --project-id P [--env ENV] --mode threshold
      the same for every wallet of the project whose shares the service holds (wallets belong to the project,
      not to an environment; --env is checked and echoed); prints the counts below with projectId and mode
  npm run custody -- refresh
      new shares for every wallet at its next epoch, same public keys (FROST and threshold ECDSA: a zero-sharing
      refresh, for threshold ECDSA followed by a fresh OT setup; isolated secp256k1: a new XOR pad); the signer
      refuses the older shares from then on; resumable
  npm run custody -- recover --wallet-id W --lost api|signer --recovery-key-file F
      rebuilds the share the API (api: its KEK or its row is gone) or the signer (signer: its service KEK is
      gone) lost, for a FROST or threshold ECDSA wallet, from the other online share and participant 3's
      (the offline recovery private key in F, PEM X25519, mode 0600), then refreshes the pair to the next
      epoch (the lost party's old shares no longer sign); same key and address; runs in this process, not
      in the running service (with the embedded database, stop the service first); resumable; prints
      { command, walletId, type, address, lost, outcome, epoch } with outcome recovered, or intact when
      the lost party's share opens (nothing to rebuild)
  PREVIOUS_SERVICE_SHARE_KEKS=<the former SERVICE_SHARE_KEKS> npm run custody -- reseal-webhook-secrets
      once, when upgrading a PostgreSQL deployment to the signer process: webhook secrets sealed under the
      former service-share KEKs are sealed again under API_KEKS (local mode does it at start by itself);
      prints { command, endpoints }
  npm run custody -- mode --project-id P --env ENV --mode threshold|isolated
      the custody mode of the project's new EVM and COSMOS wallets in that environment: isolated (the
      default: the key is joined only inside the signer) or threshold (DKLs23 2-of-2 between the API
      and the signer, with an offline recovery share; implemented from the paper, not externally
      audited); existing wallets keep theirs; prints { command, projectId, environment, secp256k1Mode, review }
  npm run custody -- verify-log
      checks the signer's hash-chained signature log and pairs its entries with the API's audit rows
      of wallet signatures; exit code 1 when the chain is broken or either side has a signature the
      other lacks
convert and refresh print one JSON line: { command, wallets, done, skipped, failed, failures };
verify-log: { ok, chain, walletSignatures, serviceKeySignatures, matched, missingInAudit, missingInLog }.`;

await main(async () => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'project-id': { type: 'string' },
      'wallet-id': { type: 'string' },
      env: { type: 'string' },
      mode: { type: 'string' },
      lost: { type: 'string' },
      'recovery-key-file': { type: 'string' },
    },
  });
  switch (positionals[0]) {
    case 'mode': {
      const { 'project-id': projectId, env, mode } = values;
      if (!projectId || !env || !mode) throw new UsageError(`mode needs --project-id, --env and --mode\n${usage}`);
      return execute('custody.mode', { projectId, environment: env, mode });
    }
    case 'convert': {
      const { 'wallet-id': walletId, 'project-id': projectId, env, mode } = values;
      if ((walletId || projectId) && !mode) throw new UsageError(`convert --wallet-id and --project-id need --mode threshold\n${usage}`);
      return execute('custody.convert', { walletId, projectId, environment: env, mode });
    }
    case 'refresh':
      return execute('custody.refresh', {});
    case 'recover': {
      const { 'wallet-id': walletId, lost, 'recovery-key-file': recoveryKeyFile } = values;
      if (!walletId || !lost || !recoveryKeyFile) throw new UsageError(`recover needs --wallet-id, --lost and --recovery-key-file\n${usage}`);
      // In this process only: the recovery private key never reaches the running service.
      const { runRecoverCommand } = await import('../custody/recover-command.ts');
      return runRecoverCommand({ walletId, lost, recoveryKeyFile });
    }
    case 'reseal-webhook-secrets': {
      const previous = process.env.PREVIOUS_SERVICE_SHARE_KEKS;
      if (!previous) throw new UsageError(`PREVIOUS_SERVICE_SHARE_KEKS is not set\n${usage}`);
      // Loaded here only: the other commands go through the running service.
      const [{ envKekProvider }, { loadConfig }, { resealWebhookSecrets }, { apiKekProvider }, { openConfiguredDatabase }] = await Promise.all([
        import('@wallet/domain'),
        import('../config.ts'),
        import('../custody/legacy-keks.ts'),
        import('../custody/signer-connection.ts'),
        import('../services.ts'),
      ]);
      const config = loadConfig();
      if (!config.databaseUrl) throw new UsageError('reseal-webhook-secrets runs on PostgreSQL (DATABASE_URL); local mode reseals at start by itself');
      const database = await openConfiguredDatabase(config);
      try {
        const endpoints = await resealWebhookSecrets(database, envKekProvider({ SERVICE_SHARE_KEKS: previous }, ['service']), apiKekProvider(config));
        return { command: 'reseal-webhook-secrets', endpoints };
      } finally {
        await database.close();
      }
    }
    case 'verify-log': {
      const report = (await execute('custody.verify-log', {})) as { ok: boolean };
      if (!report.ok) process.exitCode = 1;
      return report;
    }
    default:
      throw new UsageError(usage);
  }
});
