import { randomBytes } from 'node:crypto';
import {
  AccountRole,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { describe, expect, it } from 'vitest';
import { parseSolanaWire } from './solana-wire.ts';

async function wire(version: 0 | 'legacy', compress: boolean): Promise<Uint8Array> {
  const payer = await generateKeyPairSigner();
  const [to, mint, source, destination, program] = await Promise.all([1, 2, 3, 4, 5].map(async () => (await generateKeyPairSigner()).address));
  const instructions: Instruction[] = [
    getTransferSolInstruction({ source: payer, destination: to!, amount: 5n }),
    getTransferCheckedInstruction({ source: source!, mint: mint!, destination: destination!, authority: payer, amount: 9n, decimals: 2 }),
    { programAddress: program!, accounts: [{ address: to!, role: AccountRole.READONLY }], data: randomBytes(300) },
    { programAddress: program! },
  ];
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayer(payer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(getBase58Decoder().decode(randomBytes(32))), lastValidBlockHeight: 1n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const table = (await generateKeyPairSigner()).address;
  const compiled = compileTransaction(compress ? compressTransactionMessageUsingAddressLookupTables(message as never, { [table]: [to!, destination!] } as Record<Address, Address[]>) : message);
  return new Uint8Array(getTransactionEncoder().encode(compiled));
}

describe('parseSolanaWire', () => {
  it("reads what kit's decoders read: static keys and instructions (legacy, v0, v0 with lookup tables)", async () => {
    for (const [version, compress] of [['legacy', false], [0, false], [0, true]] as const) {
      const bytes = await wire(version, compress);
      const kit = getCompiledTransactionMessageDecoder().decode(getTransactionDecoder().decode(bytes).messageBytes);
      const ours = parseSolanaWire(bytes)!;
      expect(ours.keyCount).toBe(kit.staticAccounts.length);
      const keys = Array.from({ length: ours.keyCount }, (_, i) => getAddressDecoder().decode(ours.keys.subarray(32 * i, 32 * i + 32)));
      expect(keys).toEqual(kit.staticAccounts);
      if (!('instructions' in kit)) throw new Error('unexpected message version');
      expect(ours.instructions.map((ix) => ({ program: ix.programIndex, accounts: [...ix.accounts], data: [...ix.data] }))).toEqual(
        kit.instructions.map((ix) => ({ program: ix.programAddressIndex, accounts: ix.accountIndices ?? [], data: [...(ix.data ?? [])] })),
      );
    }
  });

  it('refuses truncated bytes, trailing bytes and versions other than legacy and 0', async () => {
    const bytes = await wire(0, false);
    for (const cut of [0, 1, 65, 70, 100, bytes.length - 1]) expect(parseSolanaWire(bytes.subarray(0, cut))).toBeNull();
    expect(parseSolanaWire(Uint8Array.from([...bytes, 0]))).toBeNull();
    const v1 = Uint8Array.from(bytes);
    v1[65] = 0x81;
    expect(parseSolanaWire(v1)).toBeNull();
  });
});
