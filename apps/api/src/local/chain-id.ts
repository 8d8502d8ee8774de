/** The EVM devnet answers as Base Sepolia, where the spec's local-test yield markets live (no devnet code here: main.ts reads it in every mode). */
export const LOCAL_EVM_CHAIN_ID = 84532;
