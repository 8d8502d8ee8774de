import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

const usage = `usage:
  npm run sponsorship -- enable|disable|pause|resume --project-id ID --env development|production
      [--gas-cap-wei N] [--daily-budget-wei N]
      enable/disable: gas sponsorship of the project and environment on or off (off until enabled);
      pause: stays enabled but admits no new sponsored transfer; resume: admits them again.
      --gas-cap-wei: the most one operation may cost in gas (default 1000000000000000 = 0.001 ETH);
      --daily-budget-wei: the most the project and environment may spend per UTC day
      (default 50000000000000000 = 0.05 ETH). Audited; prints
      {projectId, environment, enabled, paused, gasCapWei, dailyBudgetWei, updatedAt, updatedBy}`;

const VERBS = ['enable', 'disable', 'pause', 'resume'] as const;
const MAX_UINT256 = (1n << 256n) - 1n;

/** A positive integer in wei, as the decimal string the service stores. */
function wei(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,77}$/.test(value) || BigInt(value) > MAX_UINT256) {
    throw new UsageError(`${flag} must be a positive integer in wei (decimal digits, at most 2^256 - 1), got ${JSON.stringify(value)}\n${usage}`);
  }
  return value;
}

await main(async () => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'project-id': { type: 'string' },
      env: { type: 'string' },
      'gas-cap-wei': { type: 'string' },
      'daily-budget-wei': { type: 'string' },
    },
  });
  const [verb, ...extra] = positionals;
  if (!VERBS.includes(verb as (typeof VERBS)[number]) || extra.length > 0) throw new UsageError(usage);
  const projectId = values['project-id'];
  if (!projectId) throw new UsageError(`--project-id is required\n${usage}`);
  if (!values.env) throw new UsageError(`--env is required\n${usage}`);
  const limits = {
    ...(values['gas-cap-wei'] !== undefined && { gasCapWei: wei('--gas-cap-wei', values['gas-cap-wei']) }),
    ...(values['daily-budget-wei'] !== undefined && { dailyBudgetWei: wei('--daily-budget-wei', values['daily-budget-wei']) }),
  };
  return execute('sponsorship.change', { projectId, environment: values.env, verb, limits });
});
