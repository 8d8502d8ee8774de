/**
 * Small SPL-token / associated-token-account helpers used by the devnet and by tests.
 * Everything is built with @solana/kit + @solana-program/{system,token}: the classic SPL Token program by default;
 * mints and accounts of Token-2022 (`tokenProgram: TOKEN_2022_PROGRAM_ADDRESS`) with the same base instructions.
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
  address,
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

/** Token-2022: its base instructions (initialize a mint, create an account, mint) have the classic layout. */
export const TOKEN_2022_PROGRAM_ADDRESS = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');

/** Decimals of the devnet's test USDC mint (same as mainnet USDC). */
export const USDC_DECIMALS = 6;

/** The associated token account of `owner` for `mint` (classic SPL Token program unless `tokenProgram`). */
export async function getAssociatedTokenAddress(owner: Address, mint: Address, tokenProgram: Address = TOKEN_PROGRAM_ADDRESS): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
  return ata;
}

/** createAccount + initializeMint2 for a new mint (`mint` must sign). `rentLamports` = getMinimumBalanceForRentExemption(82). */
export function getCreateMintInstructions(input: {
  payer: TransactionSigner;
  mint: TransactionSigner;
  mintAuthority: Address;
  decimals: number;
  rentLamports: bigint;
  tokenProgram?: Address;
}): Instruction[] {
  const programAddress = input.tokenProgram ?? TOKEN_PROGRAM_ADDRESS;
  return [
    getCreateAccountInstruction({
      payer: input.payer,
      newAccount: input.mint,
      lamports: input.rentLamports,
      space: getMintSize(),
      programAddress,
    }),
    getInitializeMint2Instruction({ mint: input.mint.address, decimals: input.decimals, mintAuthority: input.mintAuthority }, { programAddress }),
  ];
}

/** Create `owner`'s ATA if missing (idempotent, `payer` pays rent) and optionally mint `amount` base units into it. */
export async function getMintToOwnerInstructions(input: {
  payer: TransactionSigner;
  mint: Address;
  mintAuthority: TransactionSigner;
  owner: Address;
  amount: bigint;
  tokenProgram?: Address;
}): Promise<Instruction[]> {
  const programAddress = input.tokenProgram ?? TOKEN_PROGRAM_ADDRESS;
  const ata = await getAssociatedTokenAddress(input.owner, input.mint, programAddress);
  const ixs: Instruction[] = [
    getCreateAssociatedTokenIdempotentInstruction({ payer: input.payer, ata, owner: input.owner, mint: input.mint, tokenProgram: programAddress }),
  ];
  if (input.amount > 0n) {
    ixs.push(getMintToInstruction({ mint: input.mint, token: ata, mintAuthority: input.mintAuthority, amount: input.amount }, { programAddress }));
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
