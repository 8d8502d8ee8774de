import { randomUUID } from 'node:crypto';
import { generateKey } from '../custody/keys.ts';
import { splitSecret, wipe } from '../custody/shares.ts';
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
 * Generates a wallet key and returns the wallet row with the key's two plain shares. The joined
 * key is wiped here; the caller encrypts (or hands out) the shares and wipes them.
 */
export function newWallet(identity: WalletIdentity, custody: WalletCustody): { wallet: NewWallet; user: Uint8Array; service: Uint8Array } {
  const scheme = schemeOfType[identity.type];
  const cosmosPrefix = identity.type === 'COSMOS' ? (identity.cosmosPrefix ?? 'cosmos') : null;
  const key = generateKey(scheme);
  const { user, service } = splitSecret(key.secret);
  wipe(key.secret);
  return {
    wallet: {
      id: randomUUID(),
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
    user,
    service,
  };
}
