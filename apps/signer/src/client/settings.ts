/**
 * The API side's settings for reaching the signer, from its environment:
 *   SIGNER_URL              unix:/abs/path.sock or https://host:port
 *                           (local default unix:${SIGNER_DATA_DIR or DATA_DIR/signer}/signer.sock)
 *   SIGNER_CLIENT_TLS_CA    the CA that signed the signer's certificate (local default: the generated ca.pem)
 *   SIGNER_CLIENT_TLS_CERT  this client's certificate (local default: the generated api.pem)
 *   SIGNER_CLIENT_TLS_KEY   its private key, mode 0600 (local default: the generated api-key.pem)
 *   SIGNER_TIMEOUT_MS       per call (default 10000)
 * Local mode's files are the ones the signer generates on its first start: start it (or its
 * supervisor) before reading these settings. Imports nothing that touches wallet keys or KEKs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertPrivateFile } from '../config/private-file.ts';

/** Relative paths are resolved against the repository root, like the API's and the signer's. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface SignerClientSettings {
  url: string;
  /** PEM text, ready for createSignerClient. */
  tls: { ca: string; cert: string; key: string };
  /** Where the PEM text was read from. */
  files: { ca: string; cert: string; key: string };
  timeoutMs?: number;
}

export function signerClientSettings(env: Record<string, string | undefined>, dataDir: string): SignerClientSettings {
  const get = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const appEnv = get('APP_ENV') ?? 'local';
  const local = appEnv === 'local';
  const signerDir = get('SIGNER_DATA_DIR') ? path.resolve(repoRoot, get('SIGNER_DATA_DIR')!) : path.join(path.resolve(repoRoot, dataDir), 'signer');
  const problems: string[] = [];
  const pick = (name: string, localDefault: string) => {
    const value = get(name);
    if (value !== undefined) return path.resolve(repoRoot, value);
    if (!local) problems.push(`${name} is not set; ${appEnv} needs it to reach the signer`);
    return localDefault;
  };
  const url = get('SIGNER_URL') ?? (local ? `unix:${path.join(signerDir, 'signer.sock')}` : undefined);
  if (url === undefined) problems.push(`SIGNER_URL is not set; ${appEnv} needs it to reach the signer`);
  const files = {
    ca: pick('SIGNER_CLIENT_TLS_CA', path.join(signerDir, 'tls', 'ca.pem')),
    cert: pick('SIGNER_CLIENT_TLS_CERT', path.join(signerDir, 'tls', 'api.pem')),
    key: pick('SIGNER_CLIENT_TLS_KEY', path.join(signerDir, 'tls', 'api-key.pem')),
  };
  const timeoutText = get('SIGNER_TIMEOUT_MS');
  if (timeoutText !== undefined && !/^[1-9]\d*$/.test(timeoutText)) problems.push('SIGNER_TIMEOUT_MS must be a positive whole number of milliseconds');
  if (problems.length > 0) throw new Error(`signer client configuration refused:\n- ${problems.join('\n- ')}`);
  const read = (file: string, name: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      const hint = local ? ' (local mode: the signer generates it on its first start)' : '';
      throw new Error(`${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})${hint}`);
    }
  };
  const tls = { ca: read(files.ca, 'SIGNER_CLIENT_TLS_CA'), cert: read(files.cert, 'SIGNER_CLIENT_TLS_CERT'), key: '' };
  assertPrivateFile(files.key, 'SIGNER_CLIENT_TLS_KEY');
  tls.key = read(files.key, 'SIGNER_CLIENT_TLS_KEY');
  return { url: url!, tls, files, ...(timeoutText !== undefined ? { timeoutMs: Number(timeoutText) } : {}) };
}
