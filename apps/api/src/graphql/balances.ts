import type { EvmBalance, SolanaBalance, StaffPrincipal, WalletBalances } from '@wallet/domain';
import type { GraphQLContext, SchemaBuilderOf } from './schema.ts';

type Entry = EvmBalance | SolanaBalance;

/**
 * `walletBalances(walletId, chainId | network)`: the REST balances use case for a wallet of the staff
 * member's partner (another partner's is the 404 of a missing one). Block numbers and slots are
 * strings, as the Transaction type's blockNumber.
 */
export function addBalanceFields(builder: SchemaBuilderOf, principal: (ctx: GraphQLContext) => StaffPrincipal) {
  const balance = builder.objectRef<Entry>('Balance').implement({
    description: 'One asset of the wallet: base units and whole tokens as decimal strings, and where it was read',
    fields: (t) => ({
      asset: t.exposeString('asset', { description: 'native, erc20 or spl' }),
      tokenAddress: t.exposeString('tokenAddress', { nullable: true, description: 'The ERC-20 contract or SPL mint; null for the native currency' }),
      tokenProgram: t.string({ nullable: true, description: 'Solana: the token program of the mint', resolve: (b) => ('tokenProgram' in b ? b.tokenProgram : null) }),
      symbol: t.exposeString('symbol'),
      decimals: t.exposeInt('decimals'),
      rawBalance: t.exposeString('rawBalance', { description: 'Base units' }),
      balance: t.exposeString('balance', { description: 'Whole tokens' }),
      blockNumber: t.string({ nullable: true, description: 'EVM: the block read', resolve: (b) => ('blockNumber' in b ? String(b.blockNumber) : null) }),
      slot: t.string({ nullable: true, description: 'Solana: the slot read', resolve: (b) => ('slot' in b ? String(b.slot) : null) }),
    }),
  });

  const walletBalances = builder.objectRef<WalletBalances>('WalletBalances').implement({
    description: "A wallet's balances on one chain, read from the chain (REST GET /v1/wallets/{walletId}/balances)",
    fields: (t) => ({
      walletId: t.exposeID('walletId'),
      type: t.exposeString('type'),
      address: t.exposeString('address'),
      chainId: t.string({ nullable: true, resolve: (w) => (w.type === 'EVM' ? w.chainId : null) }),
      network: t.string({ nullable: true, resolve: (w) => (w.type === 'SOLANA' ? w.network : null) }),
      balances: t.field({ type: [balance], resolve: (w) => w.balances as Entry[] }),
    }),
  });

  builder.queryField('walletBalances', (t) =>
    t.field({
      type: walletBalances,
      args: {
        walletId: t.arg.id({ required: true }),
        chainId: t.arg.string({ required: false, description: 'EVM wallets (required)' }),
        network: t.arg.string({ required: false, description: 'Solana wallets (default SOLANA)' }),
      },
      resolve: (_root, args, ctx) =>
        ctx.services.balances.forStaff(principal(ctx), {
          walletId: String(args.walletId),
          ...(args.chainId === null || args.chainId === undefined ? {} : { chainId: args.chainId }),
          ...(args.network === null || args.network === undefined ? {} : { network: args.network }),
        }),
    }),
  );
}
