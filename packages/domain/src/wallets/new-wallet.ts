import { randomUUID } from 'node:crypto';
import type { CustodyMode, EncryptedShare } from '../custody/types.ts';
import type { KeyVault } from '../custody/vault.ts';
import type { NewWallet, WalletCustody } from '../ports.ts';
import { deriveAddress, formatPublicKey, type WalletType } from './addresses.ts';
import { normalizeIdentifier, schemeOfType, type UserIdentifierType } from './schemas.ts';

export interface WalletIdentity {
  projectId: string;
  type: WalletType;
  userIdentifier: string;
  userIdentifierType: UserIdentifierType;
  cosmosPrefix?: string;
}

/** A key held as threshold shares (FROST or DKLs23) never exists whole; XOR halves are joined in the signer. */
const custodyModeOf = (shares: EncryptedShare[]): CustodyMode => (shares.some((s) => s.role === 'frost-api' || s.role === 'dkls-api') ? 'threshold' : 'isolated');

/**
 * Has the vault generate a wallet key and returns the wallet row with the sealed shares (and, for a
 * client-held wallet, the plain user share the client keeps: the caller hands it out and wipes it).
 * `secp256k1Mode` is the project's custody mode for new EVM and COSMOS wallets.
 */
export async function newWallet(
  vault: Pick<KeyVault, 'createWalletKey'>,
  identity: WalletIdentity,
  custody: WalletCustody,
  secp256k1Mode: CustodyMode = 'isolated',
): Promise<{ wallet: NewWallet; shares: EncryptedShare[]; clientUserShare: Uint8Array | null }> {
  const scheme = schemeOfType[identity.type];
  const cosmosPrefix = identity.type === 'COSMOS' ? (identity.cosmosPrefix ?? 'cosmos') : null;
  const id = randomUUID();
  const key = await vault.createWalletKey({
    walletId: id,
    scheme,
    clientHeldUserShare: custody === 'client',
    ...(scheme === 'DKLS' && custody === 'api_key' ? { custodyMode: secp256k1Mode } : {}),
  });
  return {
    wallet: {
      id,
      projectId: identity.projectId,
      type: identity.type,
      scheme,
      address: deriveAddress(identity.type, key.publicKey, cosmosPrefix ?? undefined),
      publicKey: formatPublicKey(identity.type, key.publicKey),
      status: 'ready',
      userIdentifier: normalizeIdentifier(identity.userIdentifierType, identity.userIdentifier),
      userIdentifierType: identity.userIdentifierType,
      cosmosPrefix,
      custody,
      custodyMode: custodyModeOf(key.shares),
    },
    shares: key.shares,
    clientUserShare: key.clientUserShare,
  };
}
