import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateKekEntry } from '@wallet/domain';
import { buildSigner, signerStartCommand } from '../../../signer/scripts/build.mjs';
import { issueCredentialSet } from '../../../signer/src/config/credentials.ts';
import { repoRoot } from '../config.ts';

/**
 * The threshold ECDSA presignatures the signer of `signerDir` recorded as used: the ids on its
 * signature log's lines (each signature's line is its presignature's durable record of use).
 */
export function usedPresignatures(signerDir: string): string[] {
  const file = path.join(signerDir, 'signatures.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim()) // a running signer's journals end in padding
    .map((line) => (JSON.parse(line) as { presignature?: string }).presignature)
    .filter((id): id is string => id !== undefined);
}

const outputs = new WeakMap<ChildProcess, () => string>();

/** What a signer started by `spawnSigner` printed so far (its log lines). */
export function signerOutput(child: ChildProcess): string {
  return outputs.get(child)?.() ?? '';
}

/** Starts the signer as its own process (`node apps/signer/dist/main.js`) with `env`; resolves once it listens. */
export async function spawnSigner(env: Record<string, string>, children: ChildProcess[] = []): Promise<ChildProcess> {
  await buildSigner();
  const child = spawn(process.execPath, signerStartCommand.args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  outputs.set(child, () => output);
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (!output.includes('wallet signer listening')) return;
      clearInterval(timer);
      resolve();
    }, 20);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`signer exited with ${code}: ${output}`));
    });
  });
  return child;
}

/**
 * A signer configured as production is (its own KEKs, TLS files issued for it, a Unix socket in
 * `dir`), and the variables an API process of the same deployment needs to reach it.
 */
export function productionSigner(dir: string): { signerEnv: Record<string, string>; apiEnv: Record<string, string> } {
  const tls = path.join(dir, 'signer-tls');
  mkdirSync(tls, { recursive: true, mode: 0o700 });
  const set = issueCredentialSet();
  const file = (name: string, pem: string) => {
    const target = path.join(tls, name);
    writeFileSync(target, pem, { mode: 0o600 });
    return target;
  };
  const ca = file('ca.pem', set.ca);
  // The operator's offline recovery key: only its public half is ever configured.
  const recovery = file('recovery-public.pem', generateKeyPairSync('x25519').publicKey.export({ type: 'spki', format: 'pem' }).toString());
  const socket = path.join(dir, 'signer-run', 'signer.sock');
  return {
    signerEnv: {
      APP_ENV: 'production',
      SIGNER_DATA_DIR: path.join(dir, 'signer-run'),
      SIGNER_LISTEN: `unix:${socket}`,
      SIGNER_TLS_CA: ca,
      SIGNER_TLS_CERT: file('signer.pem', set.server.cert),
      SIGNER_TLS_KEY: file('signer-key.pem', set.server.key),
      USER_SHARE_KEKS: generateKekEntry('user-1'),
      SERVICE_SHARE_KEKS: generateKekEntry('service-1'),
      RECOVERY_PUBLIC_KEY_FILE: recovery,
      LOG_LEVEL: 'info',
    },
    apiEnv: {
      API_KEKS: generateKekEntry('api-1'),
      SIGNER_URL: `unix:${socket}`,
      SIGNER_CLIENT_TLS_CA: ca,
      SIGNER_CLIENT_TLS_CERT: file('api.pem', set.clients['wallet-api']!.cert),
      SIGNER_CLIENT_TLS_KEY: file('api-key.pem', set.clients['wallet-api']!.key),
      RECOVERY_PUBLIC_KEY_FILE: recovery,
    },
  };
}
