import { parseArgs } from 'node:util';
import { LOCAL_PARTNER } from '@wallet/domain/staff/service.ts';
import { loadConfig } from '../config.ts';
import { UsageError, execute, main } from './run.ts';

const usage = `usage:
  npm run keys -- create [--partner NAME] [--project NAME] [--plan free|starter|growth|scale] [--env development|production] [--rate-limit N] [--ip-allowlist CIDR,CIDR]
  npm run keys -- rotate --key-id API_KEY_ID
  npm run keys -- revoke --key-id API_KEY_ID
In local mode --partner defaults to the console owner's partner (local), so the owner sees the key's project.`;

await main(async () => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      partner: { type: 'string' },
      project: { type: 'string' },
      plan: { type: 'string' },
      env: { type: 'string' },
      'rate-limit': { type: 'string' },
      'ip-allowlist': { type: 'string' },
      'key-id': { type: 'string' },
    },
  });
  const [verb] = positionals;
  if (verb === 'create') {
    const partner = values.partner ?? (loadConfig().appEnv === 'local' ? LOCAL_PARTNER : undefined);
    if (!partner) throw new UsageError(`--partner is required outside local mode\n${usage}`);
    const rateLimit = values['rate-limit'];
    if (rateLimit !== undefined && !/^\d+$/.test(rateLimit)) throw new UsageError('--rate-limit must be a whole number');
    return execute('keys.create', {
      partner,
      project: values.project,
      plan: values.plan ?? (rateLimit !== undefined ? 'scale' : undefined),
      environment: values.env,
      rateLimitPerMinute: rateLimit === undefined ? undefined : Number(rateLimit),
      ipAllowlist: values['ip-allowlist']?.split(',').filter(Boolean),
    });
  }
  if (verb === 'rotate' || verb === 'revoke') {
    if (!values['key-id']) throw new UsageError(`--key-id is required\n${usage}`);
    return execute(verb === 'rotate' ? 'keys.rotate' : 'keys.revoke', { apiKeyId: values['key-id'] });
  }
  throw new UsageError(usage);
});
