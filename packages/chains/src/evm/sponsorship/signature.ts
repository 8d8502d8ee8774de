import { parseSignature, serializeSignature, type Hex } from 'viem';

/** A secp256k1 signature as the service's signer returns it: 65 bytes (r ‖ s ‖ v) or its parts. */
export type SignatureInput = Hex | { r: Hex; s: Hex; yParity: number };

const HASH32 = /^0x[0-9a-fA-F]{64}$/;

/** The parts of a signature; throws on anything but 32-byte r and s and a yParity (or v) of 0/1 (27/28). */
export function signatureParts(signature: SignatureInput): { r: Hex; s: Hex; yParity: number } {
  if (typeof signature === 'string') {
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new TypeError('signature must be 65 bytes of hex (r ‖ s ‖ v)');
    const parsed = parseSignature(signature);
    return { r: parsed.r, s: parsed.s, yParity: parsed.yParity ?? Number(parsed.v) - 27 };
  }
  const { r, s, yParity } = signature;
  if (!HASH32.test(r) || !HASH32.test(s)) throw new TypeError('signature r and s must be 32 bytes of hex');
  if (yParity !== 0 && yParity !== 1) throw new TypeError('signature yParity must be 0 or 1');
  return { r: r.toLowerCase() as Hex, s: s.toLowerCase() as Hex, yParity };
}

/** The 65-byte form (v = 27 + yParity), as ECDSA.recover in the account and paymaster expect it. */
export function signatureHex(signature: SignatureInput): Hex {
  const { r, s, yParity } = signatureParts(signature);
  return serializeSignature({ r, s, yParity });
}
