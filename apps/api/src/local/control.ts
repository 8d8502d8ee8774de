import { timingSafeEqual } from 'node:crypto';
import express, { type Router } from 'express';
import { ApiError } from '@wallet/domain';
import type { Services } from '../services.ts';
import { runCommand, type CommandName } from '../cli/commands.ts';

/** The service's side of the control file (control-file.ts): the commands the CLIs send it. */
export function controlRouter(services: Services, token: string): Router {
  const router = express.Router();
  const expected = Buffer.from(`Bearer ${token}`);
  // 1 MB like the REST API's bodies: a policy document of 100 rules can exceed a few dozen KB.
  router.post('/internal/cli/:command', express.json({ limit: '1mb' }), async (req, res) => {
    const given = Buffer.from(req.get('authorization') ?? '');
    const loopback = ['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(req.socket.remoteAddress ?? '');
    if (!loopback || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new ApiError(403, 'FORBIDDEN', 'Not allowed');
    }
    res.json(await runCommand(services, req.params.command as CommandName, req.body));
  });
  return router;
}
