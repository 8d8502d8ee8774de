/**
 * Browser stand-in for the `node:` built-ins that @wallet/domain modules import next to their zod
 * schemas (node:crypto, node:dns/promises, node:net, node:os). The console imports those modules
 * only for their schemas; nothing here runs in a browser, and calling anything throws.
 */
const unavailable = (name: string) =>
  function (): never {
    throw new Error(`${name} is not available in the browser`);
  };

export const lookup = unavailable('dns.lookup');
export const isIP = unavailable('net.isIP');
export class BlockList {
  constructor() {
    throw new Error('net.BlockList is not available in the browser');
  }
}
export const hostname = unavailable('os.hostname');
export const tmpdir = unavailable('os.tmpdir');
export const createHash = unavailable('crypto.createHash');
export const createHmac = unavailable('crypto.createHmac');
export const randomBytes = unavailable('crypto.randomBytes');
export const randomUUID = unavailable('crypto.randomUUID');
export const randomFillSync = unavailable('crypto.randomFillSync');
export const timingSafeEqual = unavailable('crypto.timingSafeEqual');
export const scrypt = unavailable('crypto.scrypt');
export const createCipheriv = unavailable('crypto.createCipheriv');
export const createDecipheriv = unavailable('crypto.createDecipheriv');
export const createECDH = unavailable('crypto.createECDH');
export const ECDH = unavailable('crypto.ECDH');
export const createPublicKey = unavailable('crypto.createPublicKey');
export const createPrivateKey = unavailable('crypto.createPrivateKey');
export const diffieHellman = unavailable('crypto.diffieHellman');
export const generateKeyPairSync = unavailable('crypto.generateKeyPairSync');
export const sign = unavailable('crypto.sign');
export default {};
