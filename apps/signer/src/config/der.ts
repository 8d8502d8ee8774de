/**
 * The minimal DER (ASN.1) encoding needed to issue X.509 v3 certificates with node:crypto alone:
 * Node can parse certificates (crypto.X509Certificate) but has no builder, and the signer takes no
 * npm dependency for it. (apps/api/src/webhook-listen/certificates.ts builds its certificates with
 * @peculiar/x509, an API dependency, so it is not imported here.) Only what certificates.ts in this
 * folder needs: one CN per name, ECDSA P-256 with SHA-256, and five extensions.
 */
import { createHash, sign, type KeyObject } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
export const octetString = (content: Buffer) => tlv(0x04, content);
export const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0]));
/** Context-specific constructed tag [n] (EXPLICIT). */
export const explicit = (n: number, content: Buffer) => tlv(0xa0 | n, content);
/** Context-specific primitive tag [n] (IMPLICIT over a primitive type). */
export const implicit = (n: number, content: Buffer) => tlv(0x80 | n, content);

/** A non-negative INTEGER from its big-endian bytes (a leading 0 added when the top bit is set). */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (n: number) => unsignedInteger(Buffer.from([n]));

export function bitString(content: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [40 * parts[0]! + parts[1]!];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
export function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

const OID = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const name = (commonName: string) => sequence(set(sequence(oid(OID.commonName), utf8String(commonName))));
const extension = (id: string, critical: boolean, value: Buffer) => sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));

/** Key usage bits, numbered from the most significant bit of the first byte as in RFC 5280. */
export const KeyUsage = { digitalSignature: 0x80, keyCertSign: 0x04, cRLSign: 0x02 } as const;

function keyUsageBits(bits: number): Buffer {
  let unused = 0;
  while (unused < 7 && ((bits >> unused) & 1) === 0) unused++;
  return bitString(Buffer.from([bits]), unused);
}

/** SHA-1 of the subjectPublicKey bits (RFC 5280 4.2.1.2 method 1). */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // An EC P-256 SPKI ends with the 65-byte uncompressed point.
  return createHash('sha1').update(spki.subarray(spki.length - 65)).digest();
}

export interface CertificateSpec {
  serialNumber: Buffer;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  /** The issuer's private key (the subject's own for a self-signed CA). */
  signingKey: KeyObject;
  issuerPublicKey: KeyObject;
  ca: boolean;
  keyUsage: number;
  extendedKeyUsage?: Array<'serverAuth' | 'clientAuth'>;
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** A DER X.509 v3 certificate signed with ECDSA-SHA256 by `signingKey`. */
export function buildCertificate(spec: CertificateSpec): Buffer {
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const extensions = [
    extension(OID.basicConstraints, true, spec.ca ? sequence(boolean(true), smallInteger(0)) : sequence()),
    extension(OID.keyUsage, true, keyUsageBits(spec.keyUsage)),
    extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(spec.publicKey))),
  ];
  if (!spec.ca) extensions.push(extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, keyIdentifier(spec.issuerPublicKey)))));
  if (spec.extendedKeyUsage?.length) extensions.push(extension(OID.extKeyUsage, false, sequence(...spec.extendedKeyUsage.map((u) => oid(OID[u])))));
  const altNames = [
    ...(spec.dnsNames ?? []).map((dns) => implicit(2, Buffer.from(dns, 'ascii'))),
    ...(spec.ipAddresses ?? []).map((ip) => implicit(7, Buffer.from(ip.split('.').map(Number)))),
  ];
  if (altNames.length > 0) extensions.push(extension(OID.subjectAltName, false, sequence(...altNames)));
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(spec.serialNumber),
    algorithm,
    name(spec.issuer),
    sequence(time(spec.notBefore), time(spec.notAfter)),
    name(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, spec.signingKey); // DER-encoded ECDSA signature
  return sequence(tbs, algorithm, bitString(signature));
}

export function pem(label: string, der: Buffer): string {
  return `-----BEGIN ${label}-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}
