// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata polyfill
// loaded first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listenDir, localCaCertFile, localCaDir, localCaKeyFile } from './paths.ts';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
const CA_VALIDITY_MS = 10 * 365 * DAY_MS;
const SERVER_VALIDITY_MS = 30 * DAY_MS;
/** Certificates start an hour back, so a clock a little behind still accepts them. */
const BACKDATE_MS = 60 * 60 * 1000;

export interface PemPair {
  certPem: string;
  keyPem: string;
}

/**
 * The local CA of the data directory, created on first use: its certificate (ca.pem) and private
 * key (ca-key.pem, mode 0600) are written into a fresh directory that is then renamed into place,
 * so two listeners starting at once end up with one complete CA.
 */
export async function ensureLocalCa(dataDir: string): Promise<PemPair> {
  const existing = readCa(dataDir);
  if (existing) return existing;
  mkdirSync(listenDir(dataDir), { recursive: true, mode: 0o700 });
  const keys = await generateKeys();
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=Wallet service local webhook CA (${path.basename(path.resolve(dataDir))})`,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + CA_VALIDITY_MS),
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pair = { certPem: certificate.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
  const staging = path.join(listenDir(dataDir), `ca.${process.pid}.${randomBytes(4).toString('hex')}`);
  mkdirSync(staging, { mode: 0o700 });
  writeFileSync(path.join(staging, path.basename(localCaKeyFile(dataDir))), pair.keyPem, { mode: 0o600 });
  writeFileSync(path.join(staging, path.basename(localCaCertFile(dataDir))), pair.certPem, { mode: 0o644 });
  try {
    renameSync(staging, localCaDir(dataDir));
    return pair;
  } catch {
    // Another listener created it meanwhile: use that one.
    rmSync(staging, { recursive: true, force: true });
    const created = readCa(dataDir);
    if (!created) throw new Error(`could not create the local webhook CA in ${localCaDir(dataDir)}`);
    return created;
  }
}

function readCa(dataDir: string): PemPair | null {
  try {
    return { certPem: readFileSync(localCaCertFile(dataDir), 'utf8'), keyPem: readFileSync(localCaKeyFile(dataDir), 'utf8') };
  } catch {
    return null;
  }
}

/** A server certificate for 127.0.0.1 and localhost, issued by the local CA (a new key each run). */
export async function issueLoopbackCertificate(ca: PemPair): Promise<PemPair> {
  const caCertificate = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', pemBody(ca.keyPem), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const keys = await generateKeys();
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: 'CN=127.0.0.1',
    issuer: caCertificate.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + SERVER_VALIDITY_MS),
    publicKey: keys.publicKey,
    signingKey: caKey as CryptoKey,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'ip', value: '127.0.0.1' },
        { type: 'dns', value: 'localhost' },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caCertificate),
    ],
  });
  return { certPem: certificate.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function privateKeyPem(key: CryptoKey | webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key as webcrypto.CryptoKey)).toString('base64');
  return `-----BEGIN PRIVATE KEY-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

const pemBody = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');

/** 16 random bytes, the first below 0x80 so the serial number is positive. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}
