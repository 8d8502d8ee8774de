/** Small pieces of createServices' wiring (services.ts): the CRASH_AT hook and the local devnets' sponsorship addresses. */
import type { CrashAt, LocalDevnetEndpoints, LocalSponsorship } from '@wallet/domain';
import type { Config } from './config.ts';

/** CRASH_AT (tests): SIGKILL this process when the broadcast reaches that step. */
export function crashAtPoint(point: Config['crashAt']): CrashAt | undefined {
  if (point === undefined) return undefined;
  return (reached) => {
    if (reached === point) process.kill(process.pid, 'SIGKILL');
  };
}

/** The devnet endpoints with the sponsorship addresses on the devnet that has them (GET /v1/local/devnets). */
export function withLocalSponsorship(endpoints: LocalDevnetEndpoints | undefined, local: LocalSponsorship | undefined): LocalDevnetEndpoints | undefined {
  if (!endpoints || !local) return endpoints;
  const { entryPoint, delegate, paymaster, chainId } = local.chain;
  return { ...endpoints, evm: endpoints.evm.map((e) => (e.chainId === chainId ? { ...e, sponsorship: { entryPoint, delegate, paymaster, relayer: local.relayer } } : e)) };
}
