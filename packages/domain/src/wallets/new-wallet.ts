import { randomUUID } from 'node:crypto';
import type { EncryptedShare } from '../custody/types.ts';
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

/**
 * Has the vault generate a wallet key and returns the wallet row with the sealed shares (and, for a
 * client-held wallet, the plain user share the client keeps: the caller hands it out and wipes it).
 */
export async function newWallet(
  vault: Pick<KeyVault, 'createWalletKey'>,
  identity: WalletIdentity,
  custody: WalletCustody,
): Promise<{ wallet: NewWallet; shares: EncryptedShare[]; clientUserShare: Uint8Array | null }> {
  const scheme = schemeOfType[identity.type];
  const cosmosPrefix = identity.type === 'COSMOS' ? (identity.cosmosPrefix ?? 'cosmos') : null;
  const id = randomUUID();
  const key = await vault.createWalletKey({ walletId: id, scheme, clientHeldUserShare: custody === 'client' });
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
    },
    shares: key.shares,
    clientUserShare: key.clientUserShare,
  };
}
