import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

const usage = `usage (the end-user side, simulated for local use and tests):
  npm run users -- signup --project-id ID --identifier X --type EMAIL
      creates the user and claims every unclaimed wallet of that identifier in the project
  npm run users -- pregen --project-id ID --identifier X --type EMAIL --wallet-type EVM
      a client-side pregenerated wallet; prints the client's user share (hex) once`;

await main(async () => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'project-id': { type: 'string' },
      identifier: { type: 'string' },
      type: { type: 'string' },
      'wallet-type': { type: 'string' },
    },
  });
  const [verb] = positionals;
  if (!values['project-id'] || !values.identifier || !values.type) throw new UsageError(usage);
  if (verb === 'signup') {
    return execute('users.signup', { projectId: values['project-id'], identifier: values.identifier, identifierType: values.type });
  }
  if (verb === 'pregen') {
    if (!values['wallet-type']) throw new UsageError(usage);
    return execute('users.pregen', {
      projectId: values['project-id'],
      userIdentifier: values.identifier,
      userIdentifierType: values.type,
      type: values['wallet-type'],
    });
  }
  throw new UsageError(usage);
});
