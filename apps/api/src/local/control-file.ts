import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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
