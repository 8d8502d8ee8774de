import { generateKey } from './src/custody/keys.ts';
import { deriveAddress, formatPublicKey, type WalletType } from './src/wallets/addresses.ts';
import { splitSecret, encryptShare } from './src/custody/shares.ts';
import { randomBytes } from 'node:crypto';
const scheme = { EVM: 'DKLS', COSMOS: 'DKLS', SOLANA: 'ED25519', STELLAR: 'ED25519', SUI: 'ED25519' } as const;
const n = Number(process.argv[2] ?? 5000);
const keks = { current: (r: 'user'|'service') => ({ id: r, key: r === 'user' ? u : s }), byId: () => undefined };
const u = randomBytes(32), s = randomBytes(32);
function time(label: string, fn: () => void) {
  for (let i = 0; i < 300; i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  const us = Number(process.hrtime.bigint() - t) / n / 1000;
  console.log(`${label.padEnd(40)} ${us.toFixed(1)} µs/op`);
}
for (const type of ['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'] as WalletType[]) {
  time(`${type} generateKey`, () => { generateKey(scheme[type]); });
  const k = generateKey(scheme[type]);
  time(`${type} deriveAddress`, () => { deriveAddress(type, k.publicKey); });
  time(`${type} generateKey+deriveAddress`, () => { const key = generateKey(scheme[type]); deriveAddress(type, key.publicKey); });
  time(`${type} full (gen+addr+pub+split+2xencrypt)`, () => { const key = generateKey(scheme[type]); deriveAddress(type, key.publicKey); formatPublicKey(type, key.publicKey); const sp = splitSecret(key.secret); encryptShare(keks, 'w', 'user', sp.user); encryptShare(keks, 'w', 'service', sp.service); });
}
