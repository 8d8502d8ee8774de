import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

const usage = `usage:
  npm run staff -- create --partner NAME --email EMAIL [--role owner|developer|support]   (prints a generated password once)
  npm run staff -- revoke-sessions --staff-id STAFF_ID`;

await main(async () => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { partner: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, 'staff-id': { type: 'string' } },
  });
  const [verb] = positionals;
  if (verb === 'create') {
    if (!values.partner || !values.email) throw new UsageError(`--partner and --email are required\n${usage}`);
    return execute('staff.create', { partner: values.partner, email: values.email, role: values.role ?? 'owner' });
  }
  if (verb === 'revoke-sessions') {
    if (!values['staff-id']) throw new UsageError(`--staff-id is required\n${usage}`);
    return execute('staff.revoke-sessions', { staffId: values['staff-id'] });
  }
  throw new UsageError(usage);
});
