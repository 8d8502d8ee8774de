export { BLOCKHASH_VALID_SLOTS, LAMPORTS_PER_SIGNATURE, RpcError, type Commitment } from './chain.ts';
export {
  fundSolanaWallet,
  fundSolanaWalletViaRpc,
  startSolanaDevnet,
  type FundSolanaWalletOptions,
  type SolanaDevnet,
  type StartSolanaDevnetOptions,
} from './devnet.ts';
export {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  USDC_DECIMALS,
  buildSignedTransaction,
  findAssociatedTokenPda,
  formatUiAmount,
  getAssociatedTokenAddress,
  getCreateMintInstructions,
  getMintToOwnerInstructions,
  getTransferTokenInstructions,
} from './spl.ts';
export { describeTransactionError, transactionErrorToJson, type RpcTransactionError } from './txError.ts';
