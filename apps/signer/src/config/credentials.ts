/**
 * TLS credentials of the signer's mutual TLS, and the refusal of key files others can read.
 *
 * Local mode generates them once into one directory (mode 0700, files 0600):
 *   ca.pem          the local CA certificate both sides trust
 *   signer.pem      server certificate, CN and SAN `wallet-signer`, SANs `localhost` and `127.0.0.1`
 *   signer-key.pem  its private key
 *   api.pem         client certificate, CN `wallet-api`
 *   api-key.pem     its private key
 * All keys are ECDSA P-256. The CA's private key is never written anywhere: it lives in memory for
 * the three signatures and is dropped. So nobody (not even someone who later reads this directory)
 * can mint another client certificate the signer would accept; adding a client or renewing means
 * regenerating everything (delete the directory). Certificates are valid 10 years; when the server
 * or client certificate has less than 30 days left, the whole set is regenerated.
 */
import { X509Certificate, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pidAlive } from '../store/lock.ts';
import { KeyUsage, buildCertificate, pem } from './der.ts';

export { assertPrivateFile } from './private-file.ts';

export const SIGNER_SERVER_NAME = 'wallet-signer';
export const API_CLIENT_NAME = 'wallet-api';

export const CREDENTIAL_FILES = {
  ca: 'ca.pem',
  cert: 'signer.pem',
  key: 'signer-key.pem',
  clientCert: 'api.pem',
  clientKey: 'api-key.pem',
} as const;

export interface LocalSignerCredentials {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** True when this call generated them. */
  created: boolean;
}

const DAY_MS = 86_400_000;
const VALIDITY_MS = 3650 * DAY_MS;
const RENEW_BEFORE_MS = 30 * DAY_MS;
/** Certificates start an hour back, so a clock a little behind still accepts them. */
const BACKDATE_MS = 3_600_000;

function filesOf(dir: string, created: boolean): LocalSignerCredentials {
  return {
    dir,
    caFile: path.join(dir, CREDENTIAL_FILES.ca),
    certFile: path.join(dir, CREDENTIAL_FILES.cert),
    keyFile: path.join(dir, CREDENTIAL_FILES.key),
    clientCertFile: path.join(dir, CREDENTIAL_FILES.clientCert),
    clientKeyFile: path.join(dir, CREDENTIAL_FILES.clientKey),
    created,
  };
}

type State = 'missing' | 'valid' | 'expiring' | 'incomplete';

function stateOf(dir: string): State {
  const files = Object.values(CREDENTIAL_FILES).map((name) => path.join(dir, name));
  const present = files.filter((file) => existsSync(file));
  if (present.length === 0) return 'missing';
  if (present.length < files.length) return 'incomplete';
  const credentials = filesOf(dir, false);
  for (const file of [credentials.certFile, credentials.clientCertFile]) {
    let validTo: number;
    try {
      validTo = Date.parse(new X509Certificate(readFileSync(file)).validTo);
    } catch {
      return 'incomplete'; // unreadable or cut short
    }
    if (validTo - Date.now() < RENEW_BEFORE_MS) return 'expiring';
  }
  return 'valid';
}

const serial = () => {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes;
};

export interface CredentialSet {
  ca: string;
  server: { cert: string; key: string };
  /** One client certificate per name (CN). */
  clients: Record<string, { cert: string; key: string }>;
}

/**
 * A fresh CA with a server certificate and client certificates, in memory (PEM). The CA key is
 * dropped when this returns. Local mode writes one set to disk; tests issue others (another CA,
 * another client name).
 */
export function issueCredentialSet(options: { clientNames?: string[]; serverName?: string } = {}): CredentialSet {
  const now = Date.now();
  const notBefore = new Date(now - BACKDATE_MS);
  const notAfter = new Date(now + VALIDITY_MS);
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caName = `Wallet signer local CA ${randomBytes(4).toString('hex')}`;
  const caCert = buildCertificate({
    serialNumber: serial(),
    subject: caName,
    issuer: caName,
    notBefore,
    notAfter,
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    issuerPublicKey: ca.publicKey,
    ca: true,
    keyUsage: KeyUsage.keyCertSign | KeyUsage.cRLSign,
  });
  const leaf = (subject: string, usage: 'serverAuth' | 'clientAuth', dnsNames?: string[], ipAddresses?: string[]) => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const cert = buildCertificate({
      serialNumber: serial(),
      subject,
      issuer: caName,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: ca.privateKey,
      issuerPublicKey: ca.publicKey,
      ca: false,
      keyUsage: KeyUsage.digitalSignature,
      extendedKeyUsage: [usage],
      dnsNames,
      ipAddresses,
    });
    return { cert: pem('CERTIFICATE', cert), key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
  };
  const serverName = options.serverName ?? SIGNER_SERVER_NAME;
  // ca.privateKey goes out of scope when this returns: it is never written anywhere.
  return {
    ca: pem('CERTIFICATE', caCert),
    server: leaf(serverName, 'serverAuth', [serverName, 'localhost'], ['127.0.0.1']),
    clients: Object.fromEntries((options.clientNames ?? [API_CLIENT_NAME]).map((name) => [name, leaf(name, 'clientAuth')])),
  };
}

function generateInto(dir: string): void {
  const set = issueCredentialSet();
  const client = set.clients[API_CLIENT_NAME]!;
  const write = (name: string, text: string) => writeFileSync(path.join(dir, name), text, { mode: 0o600, flag: 'wx' });
  write(CREDENTIAL_FILES.ca, set.ca);
  write(CREDENTIAL_FILES.cert, set.server.cert);
  write(CREDENTIAL_FILES.key, set.server.key);
  write(CREDENTIAL_FILES.clientCert, client.cert);
  write(CREDENTIAL_FILES.clientKey, client.key);
}

/** How long a process waits for another one generating the set, or for an incomplete set. */
const WAIT_MS = 15_000;

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The local credentials in `dir`, generated on first use. Several processes may call it at once:
 * one generates, holding `<dir>.lock` (created exclusively, holding its pid; a lock whose pid is
 * gone is stale and taken over), into a staging directory it then renames into place; the others
 * wait and read its files. A set that stays incomplete with no generator at work is an error.
 */
export function ensureLocalSignerCredentials(dir: string): LocalSignerCredentials {
  const target = path.resolve(dir);
  const lockFile = `${target}.lock`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const state = stateOf(target);
    if (state === 'valid') return filesOf(target, false);
    if (state !== 'incomplete' && takeLock(lockFile)) {
      try {
        const now = stateOf(target); // another process may have finished meanwhile
        if (now === 'valid') return filesOf(target, false);
        if (now !== 'incomplete') {
          return filesOf(target, generate(target, now));
        }
      } finally {
        rmSync(lockFile, { force: true });
      }
    }
    if (Date.now() > deadline) {
      throw new Error(state === 'incomplete'
        ? `${target} holds an incomplete set of signer TLS credentials; delete the directory to regenerate them`
        : `another process has been generating the signer TLS credentials for over ${WAIT_MS / 1000} s (${lockFile}); delete that file if no signer is starting`);
    }
    pause(50);
  }
}

/** True when this process now holds the generation lock; a stale one (dead pid) is removed. */
function takeLock(lockFile: string): boolean {
  mkdirSync(path.dirname(lockFile), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(lockFile, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let owner: number;
  try {
    owner = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
  } catch {
    return false; // released meanwhile: the next round looks again
  }
  // An empty lock is one being written; a dead owner's lock is stale.
  if (Number.isInteger(owner) && !pidAlive(owner)) rmSync(lockFile, { force: true });
  return false;
}

/**
 * Generates a set into `target` (moving an expiring one aside); the caller holds the lock. False when
 * a set got there first anyway (two processes that both took over one stale lock).
 */
function generate(target: string, state: 'missing' | 'expiring'): boolean {
  const staging = `${target}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(staging, { mode: 0o700 });
  try {
    generateInto(staging);
    if (state === 'expiring') renameSync(target, `${target}.expired-${Date.now()}-${randomBytes(4).toString('hex')}`);
    try {
      renameSync(staging, target);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      return false;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
