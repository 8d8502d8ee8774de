/**
 * Every "yes" cell of the signing matrix (route × wallet type), each with a request body built here
 * and a check of the answer by the chain's own SDK; every Ed25519 signature also by @noble/curves in
 * strict mode (zip215: false) and by node:crypto, over the bytes the chain says were signed.
 * Used by tests that sign through a real signer process.
 */
import { createHash, createPublicKey, randomBytes, verify as nodeVerify } from 'node:crypto';
import { Secp256k1, Secp256k1Signature } from '@cosmjs/crypto';
import { bcs } from '@mysten/sui/bcs';
import { messageWithIntent } from '@mysten/sui/cryptography';
import { Ed25519PublicKey } from '@mysten/sui/keypairs/ed25519';
import { Transaction as SuiTransaction } from '@mysten/sui/transactions';
import { verifyPersonalMessageSignature, verifyTransactionSignature } from '@mysten/sui/verify';
import { ed25519 } from '@noble/curves/ed25519.js';
import { blake2b } from '@noble/hashes/blake2.js';
import {
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getAddressEncoder,
  getBase58Decoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
  address as solanaAddress,
  type Address,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder, type Transaction as StellarTransaction } from '@stellar/stellar-sdk';
import { recoverAddress, recoverTransactionAddress, verifyMessage, verifyTypedData, type Hex } from 'viem';
import { recoverAuthorizationAddress } from 'viem/utils';

export type MatrixWalletType = 'EVM' | 'COSMOS' | 'SOLANA' | 'STELLAR' | 'SUI';
export interface MatrixWallet {
  type: string;
  address: string;
  publicKey: string;
}
type Answer = Record<string, any>;

export interface SigningCell {
  type: MatrixWalletType;
  route: 'sign-message' | 'sign-raw' | 'sign-transaction' | 'sign-typed-data' | 'sign-authorization';
  body(wallet: MatrixWallet): Promise<Record<string, unknown>>;
  /** True when the answer holds a valid signature by `wallet` of what `body` asked for. */
  verify(wallet: MatrixWallet, answer: Answer, body: Record<string, unknown>): Promise<boolean>;
}

const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const MESSAGE = 'signed through the signer ✓';
const RAW_HASH = `0x${'ab'.repeat(32)}` as Hex;

/** The wallet's Ed25519 public key: from the address where the chain encodes it there, else from the hex field. */
function ed25519PublicKey(wallet: MatrixWallet): Uint8Array {
  if (wallet.type === 'SOLANA') return new Uint8Array(getAddressEncoder().encode(solanaAddress(wallet.address)));
  if (wallet.type === 'STELLAR') return new Uint8Array(Keypair.fromPublicKey(wallet.address).rawPublicKey());
  return Buffer.from(wallet.publicKey, 'base64'); // SUI: the 32 bytes in base64
}

/** @noble/curves strict (RFC 8032, zip215: false) and node:crypto both accept `signature` of `bytes`. */
function ed25519Strict(wallet: MatrixWallet, bytes: Uint8Array, signature: Uint8Array): boolean {
  const publicKey = ed25519PublicKey(wallet);
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: 'der', type: 'spki' });
  return ed25519.verify(signature, bytes, publicKey, { zip215: false }) && nodeVerify(null, bytes, key, signature);
}

const hexBytes = (hex: string) => Buffer.from(hex.replace(/^0x/, ''), 'hex');
const utf8 = (text: string) => new TextEncoder().encode(text);

/** Sui's serialized signature (flag ‖ signature ‖ public key, base64): the 64 signature bytes. */
const suiSignatureBytes = (serialized: string) => Buffer.from(serialized, 'base64').subarray(1, 65);
/** What Sui signs: blake2b-256 of the intent message. */
const suiDigest = (scope: 'PersonalMessage' | 'TransactionData', bytes: Uint8Array) => blake2b(messageWithIntent(scope, bytes), { dkLen: 32 });

function solanaTransaction(feePayer: string): string {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer as Address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(getBase58Decoder().decode(randomBytes(32))), lastValidBlockHeight: 100n }, m),
    (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: feePayer as never, destination: '11111111111111111111111111111112' as Address, amount: 1000n })], m),
  );
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString('base64');
}

function stellarEnvelope(source: string): string {
  return new TransactionBuilder(new Account(source, '1'), { fee: '100', networkPassphrase: Networks.TESTNET })
    .addOperation(Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1' }))
    .setTimeout(300)
    .build()
    .toXDR();
}

async function suiTransaction(sender: string): Promise<string> {
  const tx = new SuiTransaction();
  tx.setSender(sender);
  tx.setGasPrice(1000);
  tx.setGasBudget(10_000_000);
  tx.setGasPayment([{ objectId: `0x${'11'.repeat(32)}`, version: '7', digest: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' }]);
  const [coin] = tx.splitCoins(tx.gas, [1000]);
  tx.transferObjects([coin!], `0x${'22'.repeat(32)}`);
  return Buffer.from(await tx.build()).toString('base64');
}

const TYPED_DATA = {
  domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
};

const fixed = (body: Record<string, unknown>) => async () => body;

export const signingMatrix: SigningCell[] = [
  {
    type: 'EVM',
    route: 'sign-message',
    body: fixed({ message: MESSAGE }),
    verify: async (w, a) => verifyMessage({ address: w.address as Hex, message: MESSAGE, signature: `0x${a.signature}` }),
  },
  {
    type: 'EVM',
    route: 'sign-raw',
    body: fixed({ data: RAW_HASH, walletType: 'EVM' }),
    verify: async (w, a) => (await recoverAddress({ hash: RAW_HASH, signature: `0x${a.signature}` })) === w.address,
  },
  {
    type: 'EVM',
    route: 'sign-transaction',
    body: fixed({ transaction: { to: '0x000000000000000000000000000000000000dEaD', value: '1000', chainId: 84532, type: 2, nonce: 0, gasLimit: '21000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000' } }),
    verify: async (w, a) => (await recoverTransactionAddress({ serializedTransaction: a.signedTransaction })) === w.address,
  },
  {
    type: 'EVM',
    route: 'sign-typed-data',
    body: fixed({ typedData: TYPED_DATA }),
    verify: async (w, a) => verifyTypedData({ ...TYPED_DATA, address: w.address as Hex, signature: `0x${a.signature}` } as never),
  },
  {
    type: 'EVM',
    route: 'sign-authorization',
    body: fixed({ authorization: { contractAddress: '0x000000000000000000000000000000000000bEEF', chainId: 84532, nonce: 3 } }),
    verify: async (w, a) =>
      (await recoverAuthorizationAddress({ authorization: { address: a.address, chainId: 84532, nonce: 3 }, signature: { r: a.r, s: a.s, yParity: a.yParity } })) === w.address,
  },
  {
    type: 'COSMOS',
    route: 'sign-message',
    body: fixed({ message: MESSAGE }),
    verify: async (w, a) => Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(hexBytes(a.signature)), createHash('sha256').update(utf8(MESSAGE)).digest(), hexBytes(w.publicKey)),
  },
  {
    type: 'COSMOS',
    route: 'sign-raw',
    body: fixed({ data: 'c0ffee' }),
    verify: async (w, a) => Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(hexBytes(a.signature)), createHash('sha256').update(hexBytes('c0ffee')).digest(), hexBytes(w.publicKey)),
  },
  ...(['SOLANA', 'STELLAR'] as const).flatMap((type): SigningCell[] => [
    {
      type,
      route: 'sign-message',
      body: fixed({ message: MESSAGE }),
      verify: async (w, a) => {
        const signature = hexBytes(a.signature);
        const sdk = type === 'SOLANA' ? await verifySignature(await getPublicKeyFromAddress(solanaAddress(w.address)), signature as never, utf8(MESSAGE)) : Keypair.fromPublicKey(w.address).verify(Buffer.from(utf8(MESSAGE)), signature);
        return sdk && ed25519Strict(w, utf8(MESSAGE), signature);
      },
    },
    {
      type,
      route: 'sign-raw',
      body: fixed({ data: 'deadbeef' }),
      verify: async (w, a) => {
        const signature = hexBytes(a.signature);
        const sdk = type === 'SOLANA' ? await verifySignature(await getPublicKeyFromAddress(solanaAddress(w.address)), signature as never, hexBytes('deadbeef')) : Keypair.fromPublicKey(w.address).verify(hexBytes('deadbeef'), signature);
        return sdk && ed25519Strict(w, hexBytes('deadbeef'), signature);
      },
    },
  ]),
  {
    type: 'SOLANA',
    route: 'sign-transaction',
    body: async (w) => ({ transaction: solanaTransaction(w.address) }),
    verify: async (w, a) => {
      const decoded = getTransactionDecoder().decode(Buffer.from(a.signedTransaction, 'base64'));
      const signature = decoded.signatures[w.address as Address];
      if (!signature) return false;
      return (await verifySignature(await getPublicKeyFromAddress(solanaAddress(w.address)), signature, decoded.messageBytes)) && ed25519Strict(w, new Uint8Array(decoded.messageBytes), signature);
    },
  },
  {
    type: 'STELLAR',
    route: 'sign-transaction',
    body: async (w) => ({ transaction: stellarEnvelope(w.address), networkPassphrase: Networks.TESTNET }),
    verify: async (w, a) => {
      const tx = TransactionBuilder.fromXDR(a.signedTransaction, Networks.TESTNET) as StellarTransaction;
      const key = Keypair.fromPublicKey(w.address);
      return tx.signatures.some((s) => key.verify(tx.hash(), s.signature()) && ed25519Strict(w, tx.hash(), s.signature()));
    },
  },
  {
    type: 'SUI',
    route: 'sign-message',
    body: fixed({ message: MESSAGE }),
    verify: async (w, a) =>
      (await verifyPersonalMessageSignature(utf8(MESSAGE), a.signature)).toSuiAddress() === w.address &&
      ed25519Strict(w, suiDigest('PersonalMessage', bcs.vector(bcs.u8()).serialize(utf8(MESSAGE)).toBytes()), suiSignatureBytes(a.signature)),
  },
  {
    type: 'SUI',
    route: 'sign-raw',
    body: fixed({ data: 'deadbeef' }),
    verify: async (w, a) =>
      new Ed25519PublicKey(ed25519PublicKey(w)).toSuiAddress() === w.address &&
      (await new Ed25519PublicKey(ed25519PublicKey(w)).verify(hexBytes('deadbeef'), hexBytes(a.signature))) &&
      ed25519Strict(w, hexBytes('deadbeef'), hexBytes(a.signature)),
  },
  {
    type: 'SUI',
    route: 'sign-transaction',
    body: async (w) => ({ transaction: await suiTransaction(w.address) }),
    verify: async (w, a, body) => {
      const bytes = Buffer.from(body.transaction as string, 'base64');
      return (
        a.transaction === body.transaction &&
        (await verifyTransactionSignature(bytes, a.signature)).toSuiAddress() === w.address &&
        ed25519Strict(w, suiDigest('TransactionData', bytes), suiSignatureBytes(a.signature))
      );
    },
  },
];
