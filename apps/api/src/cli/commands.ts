import { ApiError, type PolicyView } from '@wallet/domain';
import { runConvertCommand } from '../custody/convert-command.ts';
import type { Services } from '../services.ts';

/**
 * Operator commands, run either in this process on the database or, when a running service holds
 * the embedded database, by that service through the local control route.
 */
function keyMaintenanceOf(services: Services) {
  if (!services.keyMaintenance) throw new ApiError(503, 'SIGNER_UNAVAILABLE', 'key maintenance needs the signer process');
  return services.keyMaintenance;
}

const commands = {
  'keys.create': (services: Services, args: Record<string, unknown>) =>
    services.apiKeys.create({
      partner: args.partner as string,
      project: args.project as string | undefined,
      plan: args.plan as never,
      environment: args.environment as never,
      rateLimitPerMinute: args.rateLimitPerMinute as number | undefined,
      ipAllowlist: args.ipAllowlist as string[] | undefined,
    }),
  'keys.rotate': (services: Services, args: Record<string, unknown>) => services.apiKeys.rotate(String(args.apiKeyId)),
  'keys.revoke': (services: Services, args: Record<string, unknown>) => services.apiKeys.revoke(String(args.apiKeyId)),
  'staff.create': (services: Services, args: Record<string, unknown>) =>
    services.staff.createAccount({ partner: args.partner as string, email: args.email as string, role: args.role as never }),
  'staff.revoke-sessions': (services: Services, args: Record<string, unknown>) => services.staff.revokeSessions(String(args.staffId)),
  'users.signup': (services: Services, args: Record<string, unknown>) =>
    services.users.signUp({
      projectId: args.projectId as string,
      identifier: args.identifier as string,
      identifierType: args.identifierType as never,
    }),
  'users.pregen': (services: Services, args: Record<string, unknown>) =>
    services.users.pregenerateClientWallet({
      projectId: args.projectId as string,
      type: args.type as never,
      userIdentifier: args.userIdentifier as string,
      userIdentifierType: args.userIdentifierType as never,
    }),
  'users.wallet-challenge': (services: Services, args: Record<string, unknown>) =>
    services.users.externalWalletChallenge(args as never),
  'users.verify-wallet': (services: Services, args: Record<string, unknown>) => services.users.verifyExternalWallet(args as never),
  'users.approve': (services: Services, args: Record<string, unknown>) => services.approvalCases.decide(args, 'approve'),
  'users.reject': (services: Services, args: Record<string, unknown>) => services.approvalCases.decide(args, 'reject'),
  'users.consent': (services: Services, args: Record<string, unknown>) => services.delegation.consent(args),
  'users.revoke-consent': (services: Services, args: Record<string, unknown>) => services.delegation.revokeConsent(args),
  'users.set-parameter': (services: Services, args: Record<string, unknown>) => services.delegation.setParameter(args),
  'faucet.fund': (services: Services, args: Record<string, unknown>) => services.chains.fundById(args),
  'nonces.stranded': async (services: Services) => ({ stranded: await services.nonceGaps.findStranded() }),
  'nonces.repair': (services: Services, args: Record<string, unknown>) => services.nonceGaps.repairWallet(String(args.walletId)),
  'webhooks.set': async (services: Services, args: Record<string, unknown>) =>
    services.webhooks.set(await services.webhooks.scopeForKey(String(args.apiKeyId)), {
      url: args.url as string,
      eventTypes: args.eventTypes as string[],
      enabled: args.enabled as boolean | undefined,
    }),
  'webhooks.show': async (services: Services, args: Record<string, unknown>) =>
    services.webhooks.get(await services.webhooks.scopeForKey(String(args.apiKeyId))),
  'webhooks.enable': async (services: Services, args: Record<string, unknown>) =>
    services.webhooks.enable(await services.webhooks.scopeForKey(String(args.apiKeyId))),
  'webhooks.disable': async (services: Services, args: Record<string, unknown>) =>
    services.webhooks.disable(await services.webhooks.scopeForKey(String(args.apiKeyId))),
  'webhooks.rotate': async (services: Services, args: Record<string, unknown>) =>
    services.webhooks.rotateSecret(await services.webhooks.scopeForKey(String(args.apiKeyId))),
  'webhooks.test': async (services: Services, args: Record<string, unknown>) =>
    services.webhooks.testPing(await services.webhooks.scopeForKey(String(args.apiKeyId))),
  'webhooks.resend': async (services: Services, args: Record<string, unknown>) =>
    services.webhooks.resend(
      args.apiKeyId ? await services.webhooks.scopeForKey(String(args.apiKeyId)) : null,
      args.eventId !== undefined ? { eventId: args.eventId as string } : { txHash: args.txHash as string },
    ),
  'webhooks.log': async (services: Services, args: Record<string, unknown>) =>
    services.webhooks.deliveryLog(args.apiKeyId ? await services.webhooks.scopeForKey(String(args.apiKeyId)) : null, String(args.eventId)),
  'policies.apply': async (services: Services, args: Record<string, unknown>) =>
    policyTriple(await services.policies.apply(await services.policies.operatorScope(String(args.projectId), args.environment), args.document)),
  'policies.deactivate': async (services: Services, args: Record<string, unknown>) =>
    policyTriple(await services.policies.deactivate(await services.policies.operatorScope(String(args.projectId), args.environment), String(args.policyId))),
  'policies.list': async (services: Services, args: Record<string, unknown>) =>
    services.policies.list(await services.policies.operatorScope(String(args.projectId), args.environment)),
  'policies.extension': async (services: Services, args: Record<string, unknown>) =>
    services.permissionsExtension.set(await services.policies.operatorScope(String(args.projectId), args.environment), args.enabled === true),
  'custody.convert': (services: Services, args: Record<string, unknown>) =>
    runConvertCommand(keyMaintenanceOf(services), args, (projectId, environment) => services.policies.operatorScope(projectId, environment)),
  'custody.refresh': (services: Services) => keyMaintenanceOf(services).refresh(),
  'custody.mode': async (services: Services, args: Record<string, unknown>) => ({
    command: 'mode',
    ...(await services.custodyMode.set(await services.policies.operatorScope(String(args.projectId), args.environment), args.mode)),
  }),
  'custody.verify-log': (services: Services) => {
    if (!services.checkSignatureLog) throw new ApiError(503, 'SIGNER_UNAVAILABLE', "checking the signature log needs the signer process");
    return services.checkSignatureLog();
  },
  'sponsorship.change': async (services: Services, args: Record<string, unknown>) =>
    services.sponsorship.change(await services.policies.operatorScope(String(args.projectId), args.environment), args.verb as never, args.limits),
} as const;

/** What `policies apply` and `deactivate` print: which version is now in which state. */
const policyTriple = (view: PolicyView) => ({ policyId: view.policyId, version: view.version, status: view.status });

export type CommandName = keyof typeof commands;

export async function runCommand(services: Services, name: CommandName, args: unknown): Promise<unknown> {
  const command = commands[name];
  if (!command) throw new ApiError(404, 'NOT_FOUND', `Unknown command ${name}`);
  return command(services, (args ?? {}) as Record<string, unknown>);
}
