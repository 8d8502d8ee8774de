import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';
import { ApiError } from '@wallet/domain';
import type { Services } from '../services.ts';
import { runCommand, type CommandName } from '../cli/commands.ts';

/**
 * Embedded PGlite is single-process, so while the service runs, the CLI asks the service to run
 * its command. The service writes `control.json` (port + a random token, mode 0600) in the data
 * directory; only loopback callers with that token are served.
 */
export interface ControlFile {
  pid: number;
  url: string;
  token: string;
}

export const controlFilePath = (dataDir: string) => path.join(dataDir, 'control.json');

export function readControlFile(dataDir: string): ControlFile | null {
  try {
    const file = JSON.parse(readFileSync(controlFilePath(dataDir), 'utf8')) as ControlFile;
    process.kill(file.pid, 0);
    return file;
  } catch {
    return null;
  }
}

export function writeControlFile(dataDir: string, url: string, token: string): () => void {
  const file = controlFilePath(dataDir);
  writeFileSync(file, JSON.stringify({ pid: process.pid, url, token }), { mode: 0o600 });
  chmodSync(file, 0o600);
  return () => rmSync(file, { force: true });
}

export const newControlToken = () => randomBytes(32).toString('base64url');

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
