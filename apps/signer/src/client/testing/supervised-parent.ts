// A parent process for supervisor.test.ts: supervises a signer, prints the child's pid, then idles
// until the test kills it (SIGKILL: no cleanup of its own runs).
import { startSupervisedSigner } from '../supervisor.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const signer = await startSupervisedSigner({ env: JSON.parse(process.env.SUPERVISED_ENV ?? '{}') as Record<string, string>, logger: quiet });
process.stdout.write(`${JSON.stringify({ childPid: signer.pid() })}\n`);
setInterval(() => {}, 60_000);
