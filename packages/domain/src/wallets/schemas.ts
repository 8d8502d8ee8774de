import { z } from 'zod';
import { identifierString } from '../shared/zod.ts';

export const walletTypes = ['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'] as const;
export const walletSchemes = ['DKLS', 'ED25519'] as const;
export const walletStatuses = ['creating', 'ready'] as const;
export const userIdentifierTypes = [
  'EMAIL',
  'PHONE',
  'CUSTOM_ID',
  'GUEST_ID',
  'DISCORD',
  'TWITTER',
  'TELEGRAM',
  'FARCASTER',
] as const;

export type UserIdentifierType = (typeof userIdentifierTypes)[number];

/** The one scheme each wallet type signs with; it is also the default. */
export const schemeOfType = {
  EVM: 'DKLS',
  COSMOS: 'DKLS',
  SOLANA: 'ED25519',
  STELLAR: 'ED25519',
  SUI: 'ED25519',
} as const;

export const MAX_IDENTIFIER_LENGTH = 256;

const identifierRules: Record<UserIdentifierType, { pattern?: RegExp; hint?: string }> = {
  EMAIL: { pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/, hint: 'an email address' },
  PHONE: { pattern: /^\+[1-9]\d{1,14}$/, hint: 'an E.164 phone number such as +14155550100' },
  TELEGRAM: { pattern: /^\d{1,20}$/, hint: 'a numeric Telegram user id' },
  CUSTOM_ID: {},
  GUEST_ID: {},
  DISCORD: {},
  TWITTER: {},
  FARCASTER: {},
};

/** Emails compare case-insensitively, so they are stored lower-cased; other identifiers are kept as given. */
export function normalizeIdentifier(type: UserIdentifierType, identifier: string): string {
  return type === 'EMAIL' ? identifier.toLowerCase() : identifier;
}

const identifierFields = {
  userIdentifier: identifierString().trim().min(1).max(MAX_IDENTIFIER_LENGTH),
  userIdentifierType: z.enum(userIdentifierTypes),
};

function checkIdentifier(
  value: { userIdentifier?: string; userIdentifierType?: UserIdentifierType },
  ctx: z.RefinementCtx,
) {
  if (value.userIdentifier === undefined || value.userIdentifierType === undefined) return;
  const rule = identifierRules[value.userIdentifierType];
  if (rule.pattern && !rule.pattern.test(value.userIdentifier)) {
    ctx.addIssue({
      code: 'custom',
      path: ['userIdentifier'],
      message: `must be ${rule.hint} for userIdentifierType ${value.userIdentifierType}`,
    });
  }
}

export const createWalletBody = z
  .strictObject({
    type: z.enum(walletTypes),
    ...identifierFields,
    scheme: z.enum(walletSchemes).optional(),
    cosmosPrefix: z.string().min(1).max(20).optional(),
  })
  .superRefine(checkIdentifier)
  .superRefine((value, ctx) => {
    if (value.scheme && value.scheme !== schemeOfType[value.type]) {
      ctx.addIssue({
        code: 'custom',
        path: ['scheme'],
        message: `${value.type} wallets use scheme ${schemeOfType[value.type]}`,
      });
    }
    if (value.cosmosPrefix !== undefined && value.type !== 'COSMOS') {
      ctx.addIssue({ code: 'custom', path: ['cosmosPrefix'], message: 'only allowed for COSMOS wallets' });
    }
    if (value.cosmosPrefix !== undefined && !/^[a-z][a-z0-9]{0,19}$/.test(value.cosmosPrefix)) {
      ctx.addIssue({
        code: 'custom',
        path: ['cosmosPrefix'],
        message: 'must be a bech32 prefix: lowercase letters and digits, starting with a letter, at most 20 characters',
      });
    }
  })
  .meta({ id: 'CreateWalletRequest' });

export const updateWalletBody = z
  .strictObject({
    userIdentifier: identifierFields.userIdentifier.optional(),
    userIdentifierType: identifierFields.userIdentifierType.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.userIdentifier === undefined && value.userIdentifierType === undefined) {
      ctx.addIssue({ code: 'custom', message: 'give userIdentifier, userIdentifierType or both' });
    }
  })
  .meta({ id: 'UpdateWalletRequest' });

const limitParam = z.coerce.number().int().min(1).max(100).default(50);

export const listWalletsQuery = z
  .strictObject({
    type: z.enum(walletTypes).optional(),
    status: z.enum(walletStatuses).optional(),
    userIdentifier: identifierString().min(1).max(MAX_IDENTIFIER_LENGTH).optional(),
    userIdentifierType: z.enum(userIdentifierTypes).optional(),
    address: identifierString().min(1).max(128).optional(),
    limit: limitParam,
    cursor: z.string().min(1).max(200).optional(),
  })
  .meta({ id: 'ListWalletsQuery' });

export const walletSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(walletTypes),
    scheme: z.enum(walletSchemes),
    status: z.enum(walletStatuses),
    createdAt: z.iso.datetime(),
    address: z.string(),
    publicKey: z.string(),
    userIdentifier: z.string(),
    userIdentifierType: z.enum(userIdentifierTypes),
    cosmosPrefix: z.string().optional().describe('COSMOS wallets only'),
    custodyMode: z
      .enum(['isolated', 'threshold'])
      .describe(
        'How the key is held. `isolated`: joined only inside the signer process, for each signature. `threshold`: never whole (Ed25519: FROST 2-of-3; EVM and COSMOS: DKLs23 2-of-2 online with an offline recovery share; DKLs23 is implemented from the paper, not externally audited).',
      ),
  })
  .meta({ id: 'Wallet' });

export const paginationSchema = z.object({
  cursor: z.string().nullable(),
  hasMore: z.boolean(),
  limit: z.number().int(),
});

export const walletListSchema = z
  .object({ data: z.array(walletSchema), pagination: paginationSchema })
  .meta({ id: 'WalletList' });

export type CreateWalletInput = z.output<typeof createWalletBody>;
export type UpdateWalletInput = z.output<typeof updateWalletBody>;
export type ListWalletsInput = z.output<typeof listWalletsQuery>;
export type WalletView = z.output<typeof walletSchema>;
