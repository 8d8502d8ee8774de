/** EVM hashes compare case-insensitively (stored lower-case); Solana signatures are case-sensitive base58. */
export const normalizeEvmHash = (hash: string) => (/^0x[0-9a-fA-F]+$/.test(hash) ? hash.toLowerCase() : hash);
