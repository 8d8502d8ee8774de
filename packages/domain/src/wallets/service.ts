import type { KeyVault } from '../custody/vault.ts';
import { ApiError, notFound } from '../errors.ts';
import {
  DuplicateWalletError,
  type AuditEntry,
  type CustodySettingsStore,
  type WalletRecord,
  type WalletStore,
} from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { keysetPage, type Page } from '../shared/cursor.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import {
  createWalletBody,
  listWalletsQuery,
  normalizeIdentifier,
  updateWalletBody,
  type UserIdentifierType,
  type WalletView,
} from './schemas.ts';
import { newWallet } from './new-wallet.ts';

export interface WalletServiceDeps {
  wallets: WalletStore;
  vault: Pick<KeyVault, 'createWalletKey'>;
  /** The project's custody mode for new EVM and COSMOS wallets (`npm run custody -- mode`); `isolated` without one. */
  custodySettings?: Pick<CustodySettingsStore, 'secp256k1Mode'>;
}

export function toWalletView(wallet: WalletRecord): WalletView {
  return {
    id: wallet.id,
    type: wallet.type,
    scheme: wallet.scheme,
    status: wallet.status,
    createdAt: wallet.createdAt.toISOString(),
    address: wallet.address,
    publicKey: wallet.publicKey,
    userIdentifier: wallet.userIdentifier,
    userIdentifierType: wallet.userIdentifierType as UserIdentifierType,
    ...(wallet.cosmosPrefix !== null ? { cosmosPrefix: wallet.cosmosPrefix } : {}),
    custodyMode: wallet.custodyMode,
  };
}

const walletExists = (walletId: string) =>
  new ApiError(409, 'WALLET_ALREADY_EXISTS', 'A wallet already exists for this user identifier, type and scheme', {
    walletId,
  });

function audit(caller: Caller, walletId: string, action: string, details: Record<string, unknown> = {}): AuditEntry {
  return {
    projectId: caller.projectId,
    apiKeyId: caller.apiKeyId,
    walletId,
    requestId: caller.requestId,
    action,
    details,
  };
}

export function createWalletService({ wallets, vault, custodySettings }: WalletServiceDeps) {
  async function loadWallet(caller: Caller, walletId: string): Promise<WalletRecord> {
    if (!uuidSchema.safeParse(walletId).success) throw notFound('Wallet');
    const wallet = await wallets.findInProject(caller.projectId, walletId);
    if (!wallet) throw notFound('Wallet');
    return wallet;
  }

  return {
    loadWallet,

    async loadWalletWithShares(caller: Caller, walletId: string) {
      if (!uuidSchema.safeParse(walletId).success) throw notFound('Wallet');
      const found = await wallets.findWithShares(caller.projectId, walletId);
      if (!found) throw notFound('Wallet');
      return found;
    },

    /**
     * Has the key vault generate the key and seal its user and service shares, each under its own
     * key-encryption key, and stores wallet + shares + audit row in one transaction, so a wallet is
     * never visible without its shares. Key generation is fast enough to finish inside the request,
     * so wallets are returned `ready`.
     */
    async create(caller: Caller, body: unknown): Promise<WalletView> {
      const input = parseInput(createWalletBody, body);
      const secp256k1 = input.type === 'EVM' || input.type === 'COSMOS';
      const mode = secp256k1 && custodySettings ? await custodySettings.secp256k1Mode(caller.projectId, caller.environment) : 'isolated';
      const { wallet: row, shares } = await newWallet(vault, { ...input, projectId: caller.projectId }, 'api_key', mode);
      try {
        const wallet = await wallets.create(
          row,
          shares,
          audit(caller, row.id, 'wallet.create', { type: row.type, scheme: row.scheme, custodyMode: row.custodyMode }),
        );
        return toWalletView(wallet);
      } catch (error) {
        if (error instanceof DuplicateWalletError) throw walletExists(error.existingWalletId);
        throw error;
      }
    },

    async get(caller: Caller, walletId: string): Promise<WalletView> {
      return toWalletView(await loadWallet(caller, walletId));
    },

    async list(caller: Caller, query: unknown): Promise<Page<WalletView>> {
      const input = parseInput(listWalletsQuery, query);
      const userIdentifier =
        input.userIdentifier !== undefined && input.userIdentifierType !== undefined
          ? normalizeIdentifier(input.userIdentifierType, input.userIdentifier)
          : input.userIdentifier;
      return keysetPage(
        input,
        (after, limit) =>
          wallets.list({ projectId: caller.projectId, type: input.type, status: input.status, userIdentifierType: input.userIdentifierType, userIdentifier, address: input.address, after, limit }),
        toWalletView,
      );
    },

    /** Changes the user identifier; the duplicate rule applies to the new identity. */
    async update(caller: Caller, walletId: string, body: unknown): Promise<WalletView> {
      const current = await loadWallet(caller, walletId);
      const input = parseInput(updateWalletBody, body);
      const userIdentifierType = input.userIdentifierType ?? (current.userIdentifierType as UserIdentifierType);
      const userIdentifier = input.userIdentifier ?? current.userIdentifier;
      const checked = parseInput(createWalletBody, { type: current.type, userIdentifier, userIdentifierType });
      const change = {
        userIdentifierType: checked.userIdentifierType,
        userIdentifier: normalizeIdentifier(checked.userIdentifierType, checked.userIdentifier),
      };
      try {
        const updated = await wallets.updateIdentifier(
          caller.projectId,
          current.id,
          change,
          audit(caller, current.id, 'wallet.update', {
            from: { userIdentifierType: current.userIdentifierType },
            to: { userIdentifierType: change.userIdentifierType },
          }),
        );
        if (!updated) throw notFound('Wallet');
        return toWalletView(updated);
      } catch (error) {
        if (error instanceof DuplicateWalletError) throw walletExists(error.existingWalletId);
        throw error;
      }
    },
  };
}

export type WalletService = ReturnType<typeof createWalletService>;
