import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

const usage = `usage (the end-user side, simulated for local use and tests):
  npm run users -- signup --project-id ID --identifier X --type EMAIL
      creates the user and claims every unclaimed wallet of that identifier in the project
  npm run users -- pregen --project-id ID --identifier X --type EMAIL --wallet-type EVM
      a client-side pregenerated wallet; prints the client's user share (hex) once
  npm run users -- wallet-challenge --project-id ID --identifier X --type EMAIL --address 0x…
      prints the message the user's external EVM wallet signs (EIP-191) to prove it is theirs
  npm run users -- verify-wallet --project-id ID --identifier X --type EMAIL --address 0x… --signature 0x… [--provider NAME]
      checks that signature and records user.external_wallet_verified
  npm run users -- approve --case-id ID --user-id ID
  npm run users -- reject --case-id ID --user-id ID
      the user's decision on a pending approval case (they must hold a role of its current stage
      in the case's authorization scope, and not be its initiator); prints the case
  npm run users -- consent --user-id ID --wallet-id ID --policy-id ID [--env ENV]
  npm run users -- revoke-consent --user-id ID --wallet-id ID --policy-id ID [--env ENV]
      the user's consent to the active version of a delegation policy for a wallet they claimed
      (--env: development or production; default: where the policy is active); prints the consent
  npm run users -- set-parameter --user-id ID --wallet-id ID --policy-id ID --parameter ID --value V [--expected-revision N] [--env ENV]
      saves the user's value (base units, within the parameter's min/max) of an adjustable limit;
      needs the permissions v2 extension; prints the parameters with their new revision`;

await main(async () => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'project-id': { type: 'string' },
      identifier: { type: 'string' },
      type: { type: 'string' },
      'wallet-type': { type: 'string' },
      address: { type: 'string' },
      signature: { type: 'string' },
      provider: { type: 'string' },
      'case-id': { type: 'string' },
      'user-id': { type: 'string' },
      'wallet-id': { type: 'string' },
      'policy-id': { type: 'string' },
      parameter: { type: 'string' },
      value: { type: 'string' },
      'expected-revision': { type: 'string' },
      env: { type: 'string' },
    },
  });
  const [verb] = positionals;
  if (verb === 'consent' || verb === 'revoke-consent' || verb === 'set-parameter') {
    if (!values['user-id'] || !values['wallet-id'] || !values['policy-id']) throw new UsageError(usage);
    const subject = { userId: values['user-id'], walletId: values['wallet-id'], policyId: values['policy-id'], ...(values.env ? { environment: values.env } : {}) };
    if (verb !== 'set-parameter') return execute(`users.${verb}`, subject);
    if (!values.parameter || values.value === undefined) throw new UsageError(usage);
    const revision = values['expected-revision'];
    if (revision !== undefined && !/^\d{1,9}$/.test(revision)) throw new UsageError('--expected-revision: expected a non-negative integer');
    return execute('users.set-parameter', { ...subject, parameter: values.parameter, value: values.value, ...(revision !== undefined ? { expectedRevision: Number(revision) } : {}) });
  }
  if (verb === 'approve' || verb === 'reject') {
    if (!values['case-id'] || !values['user-id']) throw new UsageError(usage);
    return execute(`users.${verb}`, { caseId: values['case-id'], userId: values['user-id'] });
  }
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
  const user = { projectId: values['project-id'], identifier: values.identifier, identifierType: values.type, address: values.address };
  if (verb === 'wallet-challenge') return execute('users.wallet-challenge', user);
  if (verb === 'verify-wallet') {
    return execute('users.verify-wallet', { ...user, signature: values.signature, ...(values.provider ? { walletProvider: values.provider } : {}) });
  }
  throw new UsageError(usage);
});
