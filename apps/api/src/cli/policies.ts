import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

const usage = `usage:
  npm run policies -- apply --project-id ID --env development|production --file policy.json
      creates the policy (version 1) or its next version and activates it; prints {policyId, version, status}
  npm run policies -- deactivate --project-id ID --env development|production --policy-id ID
      deactivates the active version (no new version); prints {policyId, version, status}
  npm run policies -- list --project-id ID --env development|production
      the active policies whose effective window holds now: {policies: [...]}
  npm run policies -- extension --project-id ID --env development|production --enable|--disable
      switches the permissions v2 extension (conditional approvals, user-adjustable limits) of the
      project and environment (audited); prints {projectId, environment, enabled, updatedAt, updatedBy}`;

/** The policy document of `--file`, parsed here (the service may run it: it does not read our files). */
function readDocument(file: string): unknown {
  let text: string;
  try {
    // `npm run` starts in the repository root; a relative path means the caller's directory.
    text = readFileSync(path.resolve(process.env.INIT_CWD ?? process.cwd(), file), 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--file ${file} is not JSON: ${(error as Error).message}`);
  }
}

await main(async () => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'project-id': { type: 'string' },
      env: { type: 'string' },
      file: { type: 'string' },
      'policy-id': { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
    },
  });
  const [verb] = positionals;
  if (verb !== 'apply' && verb !== 'deactivate' && verb !== 'list' && verb !== 'extension') throw new UsageError(usage);
  const projectId = values['project-id'];
  if (!projectId) throw new UsageError(`--project-id is required\n${usage}`);
  if (!values.env) throw new UsageError(`--env is required\n${usage}`);
  const scope = { projectId, environment: values.env };
  switch (verb) {
    case 'apply':
      if (!values.file) throw new UsageError(`--file is required\n${usage}`);
      return execute('policies.apply', { ...scope, document: readDocument(values.file) });
    case 'deactivate':
      if (!values['policy-id']) throw new UsageError(`--policy-id is required\n${usage}`);
      return execute('policies.deactivate', { ...scope, policyId: values['policy-id'] });
    case 'list':
      return execute('policies.list', scope);
    case 'extension':
      if (values.enable === values.disable) throw new UsageError(`exactly one of --enable and --disable is required\n${usage}`);
      return execute('policies.extension', { ...scope, enabled: values.enable === true });
  }
});
