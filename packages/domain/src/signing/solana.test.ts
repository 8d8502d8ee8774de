import { createHash, randomBytes } from 'node:crypto';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPair,
  getAddressFromPublicKey,
  getBase58Decoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
  type Address,
  type Instruction,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { solanaSigner } from './solana.ts';
import { expectInvalidRequest as expectInvalid, frostTestKeyMaterial, signWith as run, keyMaterial } from './testing.ts';

const solanaKey = () => keyMaterial('SOLANA');

/** What the route does: parse the body with the operation's schema, then sign. */
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/** kit's own verifier, with the public key taken from the wallet address. */
async function verifies(walletAddress: string, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  const publicKey = await getPublicKeyFromAddress(address(walletAddress));
  return verifySignature(publicKey, signature as SignatureBytes, data);
}

const MEMO_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const SYSTEM_PROGRAM = address('11111111111111111111111111111111');

function memo(text: string, signers: Address[] = []): Instruction {
  return {
    programAddress: MEMO_PROGRAM,
    accounts: signers.map((signer) => ({ address: signer, role: AccountRole.READONLY_SIGNER })),
    data: new TextEncoder().encode(text),
  };
}

/** A system-program transfer (instruction 2, u64 lamports LE) from `from` to `to`. */
function transfer(from: Address, to: Address, lamports: bigint): Instruction {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true);
  view.setBigUint64(4, lamports, true);
  return {
    programAddress: SYSTEM_PROGRAM,
    accounts: [
      { address: from, role: AccountRole.WRITABLE_SIGNER },
      { address: to, role: AccountRole.WRITABLE },
    ],
    data,
  };
}

function randomBlockhash() {
  return blockhash(getBase58Decoder().decode(randomBytes(32)));
}

function buildTransaction(version: 0 | 1 | 'legacy', feePayer: Address, instruction: Instruction): Transaction {
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: randomBlockhash(), lastValidBlockHeight: 100n }, m),
    (m) => appendTransactionMessageInstruction(instruction, m),
  );
  return compileTransaction(message);
}

/** A plain copy of a transaction's message bytes (kit types them as a read-only branded array). */
const messageOf = (transaction: Transaction) => new Uint8Array(transaction.messageBytes);
const toBase64 = (transaction: Transaction) => Buffer.from(getTransactionEncoder().encode(transaction)).toString('base64');
const fromBase64 = (base64: string) => getTransactionDecoder().decode(Buffer.from(base64, 'base64'));

async function otherSigner() {
  const keyPair = await generateKeyPair();
  return { keyPair, address: await getAddressFromPublicKey(keyPair.publicKey) };
}

describe('solanaSigner capabilities', () => {
  it('offers message, raw and transaction only (capability matrix)', () => {
    expect(solanaSigner.message).toBeDefined();
    expect(solanaSigner.raw).toBeDefined();
    expect(solanaSigner.transaction).toBeDefined();
    expect(solanaSigner.typedData).toBeUndefined();
    expect(solanaSigner.authorization).toBeUndefined();
    expect(solanaSigner.transaction!.body.meta()?.id).toBe('SolanaSignTransactionRequest');
  });
});

describe('solana sign-message', () => {
  it('Ed25519 over the raw UTF-8 bytes, verified with kit verifySignature', async () => {
    for (const text of ['hello', 'ünïcödé ✓ 🚀', 'y'.repeat(10_000)]) {
      const key = solanaKey();
      const { response, digest, chainId } = await run(solanaSigner.message, key, { message: text });
      const signature = response.signature as string;
      expect(signature).toMatch(/^[0-9a-f]{128}$/);
      const bytes = new TextEncoder().encode(text);
      expect(await verifies(key.address, Buffer.from(signature, 'hex'), bytes)).toBe(true);
      expect(await verifies(key.address, Buffer.from(signature, 'hex'), new TextEncoder().encode(`${text}!`))).toBe(false);
      expect(await verifies(solanaKey().address, Buffer.from(signature, 'hex'), bytes)).toBe(false);
      expect(digest).toBe(sha256(bytes));
      expect(chainId).toBeNull();
    }
  });

  it('rejects unknown fields', async () => {
    await expectInvalid(() => run(solanaSigner.message, solanaKey(), { message: 'x', network: 'SOLANA' }), /network/);
  });
});

describe('solana sign-raw', () => {
  it('Ed25519 over exactly the given bytes (any length), verified with kit verifySignature', async () => {
    const key = solanaKey();
    for (const length of [1, 32, 100, 1232]) {
      const bytes = randomBytes(length);
      for (const data of [bytes.toString('hex'), `0x${bytes.toString('hex')}`, bytes.toString('hex').toUpperCase()]) {
        const { response, digest, chainId } = await run(solanaSigner.raw, key, { data });
        const signature = Buffer.from(response.signature as string, 'hex');
        expect(signature.length).toBe(64);
        expect(await verifies(key.address, signature, bytes)).toBe(true);
        expect(digest).toBe(sha256(bytes));
        expect(chainId).toBeNull();
      }
    }
  });

  it('rejects odd-length and non-hex data, and unknown fields', async () => {
    const key = solanaKey();
    await expectInvalid(() => run(solanaSigner.raw, key, { data: 'abc' }), /data/);
    await expectInvalid(() => run(solanaSigner.raw, key, { data: '0xgg' }), /data/);
    await expectInvalid(() => run(solanaSigner.raw, key, { data: '' }), /data/);
    await expectInvalid(() => run(solanaSigner.raw, key, { data: 'abcd', encoding: 'hex' }), /encoding/);
  });
});

describe('solana sign-transaction', () => {
  for (const version of ['legacy', 0] as const) {
    it(`${version} transaction: signs the message bytes, verified with kit verifySignature`, async () => {
      const key = solanaKey();
      const wallet = address(key.address);
      const unsigned = buildTransaction(version, wallet, transfer(wallet, (await otherSigner()).address, 1_000_000n));
      const input = toBase64(unsigned);
      const { response, digest, chainId } = await run(solanaSigner.transaction, key, {
        transaction: input,
        network: 'SOLANA_DEVNET',
      });
      const signed = fromBase64(response.signedTransaction as string);
      expect(Buffer.from(signed.messageBytes)).toEqual(Buffer.from(unsigned.messageBytes));
      expect(Object.keys(signed.signatures)).toEqual([key.address]);
      const signature = signed.signatures[wallet];
      expect(signature).toBeTruthy();
      expect(await verifies(key.address, signature!, messageOf(signed))).toBe(true);
      expect(digest).toBe(sha256(messageOf(signed)));
      expect(chainId).toBe('SOLANA_DEVNET');
      // The wire form keeps its version (legacy has no version prefix, v0 has 0x80).
      const messageStart = Buffer.from(response.signedTransaction as string, 'base64')[1 + 64];
      expect(messageStart! & 0x80).toBe(version === 'legacy' ? 0 : 0x80);
    });
  }

  it('keeps a co-signer signature that is already present (wallet as fee payer)', async () => {
    const key = solanaKey();
    const wallet = address(key.address);
    const other = await otherSigner();
    const unsigned = buildTransaction(0, wallet, memo('two signers', [other.address]));
    const partly = await partiallySignTransaction([other.keyPair], unsigned);
    const otherSignature = partly.signatures[other.address]!;
    expect(otherSignature).toBeTruthy();
    expect(partly.signatures[wallet]).toBeNull();

    const { response } = await run(solanaSigner.transaction, key, { transaction: toBase64(partly), broadcast: false });
    const signed = fromBase64(response.signedTransaction as string);
    expect(Object.keys(signed.signatures)).toEqual([key.address, other.address]);
    expect(Buffer.from(signed.signatures[other.address]!)).toEqual(Buffer.from(otherSignature));
    const message = messageOf(signed);
    expect(await verifies(key.address, signed.signatures[wallet]!, message)).toBe(true);
    expect(await verifies(other.address, signed.signatures[other.address]!, message)).toBe(true);
  });

  it('signs in the wallet slot when the wallet is not the fee payer, and keeps an empty slot empty', async () => {
    const key = solanaKey();
    const wallet = address(key.address);
    const other = await otherSigner();
    const unsigned = buildTransaction('legacy', other.address, memo('wallet is second', [wallet]));
    const { response } = await run(solanaSigner.transaction, key, { transaction: toBase64(unsigned) });
    const signed = fromBase64(response.signedTransaction as string);
    expect(Object.keys(signed.signatures)).toEqual([other.address, key.address]);
    expect(signed.signatures[other.address]).toBeNull();
    expect(await verifies(key.address, signed.signatures[wallet]!, messageOf(signed))).toBe(true);
    // The co-signer can still complete it afterwards.
    const complete = await partiallySignTransaction([other.keyPair], signed);
    expect(await verifies(other.address, complete.signatures[other.address]!, messageOf(complete))).toBe(
      true,
    );
    expect(Buffer.from(complete.signatures[wallet]!)).toEqual(Buffer.from(signed.signatures[wallet]!));
  });

  it('re-signing an already signed transaction replaces the wallet\'s own signature in its slot (FROST signatures are randomized: a new transaction id)', async () => {
    const key = frostTestKeyMaterial('SOLANA');
    const wallet = address(key.address);
    const unsigned = buildTransaction(0, wallet, memo('again'));
    const first = await run(solanaSigner.transaction, key, { transaction: toBase64(unsigned) });
    const second = await run(solanaSigner.transaction, key, { transaction: first.response.signedTransaction });
    const [a, b] = [fromBase64(first.response.signedTransaction as string), fromBase64(second.response.signedTransaction as string)];
    expect(Object.keys(b.signatures)).toEqual([wallet]);
    expect(Buffer.from(b.messageBytes).equals(Buffer.from(a.messageBytes))).toBe(true);
    // Not the same bytes: whoever keys on the transaction id must take it from the bytes actually sent.
    expect(Buffer.from(b.signatures[wallet]!).equals(Buffer.from(a.signatures[wallet]!))).toBe(false);
    for (const tx of [a, b]) expect(await verifies(key.address, tx.signatures[wallet]!, messageOf(tx))).toBe(true);
    expect(second.digest).toBe(first.digest);
    expect(second.chainId).toBeNull();
  });

  describe('rejects bad transactions with 400', () => {
    const key = solanaKey();
    const wallet = address(key.address);

    it('wallet not a signer', async () => {
      const other = await otherSigner();
      // The wallet appears in the message, but only as a writable non-signer.
      const unsigned = buildTransaction('legacy', other.address, transfer(other.address, wallet, 1n));
      await expectInvalid(
        () => run(solanaSigner.transaction, key, { transaction: toBase64(unsigned) }),
        /^wallet is not a required signer of this transaction /,
      );
    });

    it('garbage base64 (schema)', async () => {
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction: 'not base64!!' }), /transaction/);
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction: 'AQID' + '=' }), /transaction/);
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction: '' }), /transaction/);
    });

    const undecodable = /^transaction is not a decodable Solana transaction/;

    it('valid base64 of bytes that are no transaction', async () => {
      for (const bytes of [Buffer.from([0, 0, 0]), Buffer.from([1]), randomBytes(200), Buffer.from('hello world')]) {
        await expectInvalid(() => run(solanaSigner.transaction, key, { transaction: bytes.toString('base64') }), undecodable);
      }
    });

    it('truncated or extended wire bytes', async () => {
      const wire = Buffer.from(toBase64(buildTransaction(0, wallet, memo('x'))), 'base64');
      const truncated = wire.subarray(0, wire.length - 5).toString('base64');
      const extended = Buffer.concat([wire, Buffer.from([0])]).toString('base64');
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction: truncated }), undecodable);
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction: extended }), undecodable);
    });

    it('version 1 (message-first) transactions', async () => {
      const v1 = toBase64(buildTransaction(1, wallet, memo('x')));
      await expectInvalid(
        () => run(solanaSigner.transaction, key, { transaction: v1 }),
        /^unsupported Solana transaction version 1; legacy and v0 are supported/,
      );
    });

    it('signature count that does not match the message', async () => {
      const wire = Buffer.from(toBase64(buildTransaction('legacy', wallet, memo('x'))), 'base64');
      const twoSignatures = Buffer.concat([Buffer.from([2]), Buffer.alloc(64), wire.subarray(1)]).toString('base64');
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction: twoSignatures }), undecodable);
    });

    it('unknown fields, unknown network, non-boolean broadcast', async () => {
      const transaction = toBase64(buildTransaction(0, wallet, memo('x')));
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction, networkPassphrase: 'x' }), /networkPassphrase/);
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction, network: 'SOLANA_MAINNET' }), /network/);
      await expectInvalid(() => run(solanaSigner.transaction, key, { transaction, broadcast: 1 }), /broadcast/);
      await expectInvalid(() => run(solanaSigner.transaction, key, {}), /transaction/);
    });
  });
});
