import { generateKey, publicKeyFromSecret } from './src/custody/keys.ts';
const scheme = process.argv[2] as 'DKLS' | 'ED25519'; const n = Number(process.argv[3]);
const t = Date.now();
for (let i = 0; i < n; i++) { const k = generateKey(scheme); if (i % 1000 === 0) { const p = publicKeyFromSecret(scheme, k.secret); if (Buffer.compare(p, k.publicKey)) throw new Error('mismatch'); } }
console.log(scheme, n, 'ok', Date.now() - t, 'ms');
