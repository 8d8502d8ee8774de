/**
 * Small SPL-token / associated-token-account helpers used by the devnet and by tests.
 * Everything is built with @solana/kit + @solana-program/{system,token} (classic SPL Token program, not Token-2022).
 */
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  type TransactionSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';

export { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda };

/** Decimals of the devnet's test USDC mint (same as mainnet USDC). */
export const USDC_DECIMALS = 6;

/** The associated token account (classic SPL Token program) of `owner` for `mint`. */
export async function getAssociatedTokenAddress(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

/** createAccount + initializeMint2 for a new mint (`mint` must sign). `rentLamports` = getMinimumBalanceForRentExemption(82). */
export function getCreateMintInstructions(input: {
  payer: TransactionSigner;
  mint: TransactionSigner;
  mintAuthority: Address;
  decimals: number;
  rentLamports: bigint;
}): Instruction[] {
  return [
    getCreateAccountInstruction({
      payer: input.payer,
      newAccount: input.mint,
      lamports: input.rentLamports,
      space: getMintSize(),
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({ mint: input.mint.address, decimals: input.decimals, mintAuthority: input.mintAuthority }),
  ];
}

/** Create `owner`'s ATA if missing (idempotent, `payer` pays rent) and optionally mint `amount` base units into it. */
export async function getMintToOwnerInstructions(input: {
  payer: TransactionSigner;
  mint: Address;
  mintAuthority: TransactionSigner;
  owner: Address;
  amount: bigint;
}): Promise<Instruction[]> {
  const ata = await getAssociatedTokenAddress(input.owner, input.mint);
  const ixs: Instruction[] = [
    getCreateAssociatedTokenIdempotentInstruction({ payer: input.payer, ata, owner: input.owner, mint: input.mint }),
  ];
  if (input.amount > 0n) {
    ixs.push(getMintToInstruction({ mint: input.mint, token: ata, mintAuthority: input.mintAuthority, amount: input.amount }));
  }
  return ixs;
}

/**
 * Token transfer between owners' ATAs: creates the recipient's ATA idempotently (paid by `payer`, default the sender),
 * then transferChecked from the sender's ATA.
 */
export async function getTransferTokenInstructions(input: {
  from: TransactionSigner;
  to: Address;
  mint: Address;
  amount: bigint;
  decimals: number;
  payer?: TransactionSigner;
}): Promise<Instruction[]> {
  const [source, destination] = await Promise.all([
    getAssociatedTokenAddress(input.from.address, input.mint),
    getAssociatedTokenAddress(input.to, input.mint),
  ]);
  return [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: input.payer ?? input.from,
      ata: destination,
      owner: input.to,
      mint: input.mint,
    }),
    getTransferCheckedInstruction({
      source,
      mint: input.mint,
      destination,
      authority: input.from,
      amount: input.amount,
      decimals: input.decimals,
    }),
  ];
}

/** Build a v0 transaction paid by `feePayer`, sign it with every signer referenced, return it base64 wire-encoded plus its signature. */
export async function buildSignedTransaction(input: {
  feePayer: TransactionSigner;
  instructions: readonly Instruction[];
  blockhash: Blockhash;
  lastValidBlockHeight: bigint;
}): Promise<{ wire: Base64EncodedWireTransaction; signature: string }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(input.feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: input.blockhash, lastValidBlockHeight: input.lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(input.instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { wire: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) };
}

/** `1500000n, 6` → "1.5"; like the RPC's uiAmountString (no trailing zeros, no exponent). */
export function formatUiAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const neg = amount < 0n;
  const abs = neg ? -amount : amount;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const frac = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}
