/**
 * A signature through new shares, checked under the wallet's stored public key, before the new
 * shares replace the old ones (conversion and refresh): shares that do not sign for the wallet's
 * key are never written. Each check signs a fresh random payload (a `raw` operation) through the
 * signer, which logs it like any other signature; `record` writes its audit row as soon as it is
 * made (before it is checked), so `verify-log` pairs the two as it pairs every other signature.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { parseSigningInput } from '../signing/pipeline.ts';
import { verifyEd25519 } from '../signing/ed25519.ts';
import { signOperation } from '../signing/signers.ts';
import { frostKeyMaterial, type VaultCall } from './frost-coordinator.ts';
import type { OpenedFrostShare } from './frost-share.ts';
import type { EncryptedShare } from './types.ts';
import { VAULT_METHODS } from './vault-rpc.ts';
import type { FrostSignShare, KeyVault, VaultWallet, WalletSignResult } from './vault.ts';

/** Records a check's signature: the digest and request id the signer logged it under. */
export type ShareCheckRecorder = (signature: { digest: string; requestId: string }) => Promise<void>;

const ACTION = 'wallet.sign.custody-check';

/** FROST: one signing round trip with the API's new share `opened` and the signer's new `signerShare`. */
export async function checkFrostShares(call: VaultCall, wallet: VaultWallet, opened: OpenedFrostShare, signerShare: EncryptedShare, groupKey: Uint8Array, record: ShareCheckRecorder): Promise<void> {
  const requestId = randomUUID();
  const message = randomBytes(32);
  const key = frostKeyMaterial(opened, wallet, (m, commitments) =>
    call<FrostSignShare>(VAULT_METHODS.frostSign, {
      wallet,
      share: signerShare,
      operation: 'raw',
      input: { data: Buffer.from(m).toString('hex') },
      requestId,
      action: ACTION,
      message: m,
      commitments,
    }),
  );
  const input = parseSigningInput(wallet.type, 'raw', { data: message.toString('hex') });
  const signed = await signOperation(wallet.type, 'raw').sign(key, input);
  await record({ digest: signed.digest, requestId });
  const signature = Buffer.from(String(signed.response.signature ?? ''), 'hex');
  if (!verifyEd25519(groupKey, message, signature)) throw new Error('the test signature of the new shares does not verify');
}

/** A fresh random `raw` payload for a secp256k1 wallet, and the check of a signature over it under the stored public key. */
function secp256k1Check(wallet: VaultWallet) {
  if (!wallet.publicKey || (wallet.type !== 'EVM' && wallet.type !== 'COSMOS')) throw new Error('no secp256k1 public key to check the new shares against');
  const publicKey = Buffer.from(wallet.publicKey.replace(/^0x/, ''), 'hex');
  const payload = randomBytes(32);
  const input = parseSigningInput(wallet.type, 'raw', { data: wallet.type === 'EVM' ? `0x${payload.toString('hex')}` : payload.toString('hex') });
  const digest = wallet.type === 'EVM' ? payload : createHash('sha256').update(payload).digest();
  return {
    input,
    verify(signed: Pick<WalletSignResult, 'response'>) {
      const signature = Buffer.from(String(signed.response.signature ?? ''), 'hex').subarray(0, 64);
      if (signature.length !== 64 || !secp256k1.verify(signature, digest, publicKey, { prehash: false })) throw new Error('the test signature of the new shares does not verify');
    },
  };
}

/** secp256k1 (XOR halves joined in the signer): a raw signature with the new pair, verified under the stored public key. */
export async function checkXorShares(call: VaultCall, wallet: VaultWallet, shares: EncryptedShare[], record: ShareCheckRecorder): Promise<void> {
  const requestId = randomUUID();
  const check = secp256k1Check(wallet);
  const signed = await call<WalletSignResult>(VAULT_METHODS.sign, { wallet, shares, operation: 'raw', input: check.input, requestId, action: ACTION }, requestId);
  await record({ digest: signed.digest, requestId });
  check.verify(signed);
}

/**
 * Threshold ECDSA (DKLs23): a raw signature through the new pair, 2-of-2 with the signer (`vault` is
 * the threshold vault, which signs with the API's share and the signer's), verified under the stored
 * public key.
 */
export async function checkThresholdEcdsaShares(vault: Pick<KeyVault, 'sign'>, wallet: VaultWallet, shares: EncryptedShare[], record: ShareCheckRecorder): Promise<void> {
  const requestId = randomUUID();
  const check = secp256k1Check(wallet);
  const signed = await vault.sign({ wallet, shares, operation: 'raw', input: check.input, requestId, action: ACTION });
  await record({ digest: signed.digest, requestId });
  check.verify(signed);
}
