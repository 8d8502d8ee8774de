import SchemaBuilder from '@pothos/core';
import {
  cursorOf,
  type ConsoleTransactionSummary,
  type ConsoleTransactionView,
  type ConsoleWalletView,
  type ConsoleYieldOperationView,
  type DeliveryAttemptView,
  type Paged,
  type ProjectView,
  type StaffPrincipal,
  type TransactionDeliveryView,
} from '@wallet/domain';
import { GraphQLError } from 'graphql';
import type { Services } from '../services.ts';
import { addApprovalCaseFields } from './approval-cases.ts';
import { addAuthorizationScopeFields } from './authorization-scopes.ts';
import { addSearchFields } from './search.ts';
import { addRequestLogFields } from './request-log.ts';
import { addSponsorshipFields } from './sponsorship.ts';
import { addBalanceFields } from './balances.ts';

export interface GraphQLContext {
  services: Services;
  staff: StaffPrincipal | null;
}

type TransactionNode = ConsoleTransactionSummary &
  Partial<Pick<ConsoleTransactionView, 'nonce' | 'cancellationOf' | 'stage' | 'reviewId' | 'userOperationHash' | 'actualGasCost' | 'autoRetry'>> & {
  webhookDeliveries?: TransactionDeliveryView[];
};
type Monitoring = NonNullable<ConsoleTransactionSummary['monitoring']>;
interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** The spec's 401 as a GraphQL error (handler.ts makes the HTTP status 401 too). */
export const unauthenticated = () =>
  new GraphQLError('Sign in first', { extensions: { code: 'UNAUTHORIZED', status: 401, message: 'Sign in first' } });

/** Every root field starts here: the signed-in staff member, whose partner scopes everything. */
function principal(ctx: GraphQLContext): StaffPrincipal {
  if (!ctx.staff) throw unauthenticated();
  return ctx.staff;
}

/** A domain page as a Relay connection; each edge's cursor continues the list after that node. */
function connection<T extends { createdAt: string }>(page: Paged<T>, key: (node: T) => { createdAt: string; id: string }): Connection<T> {
  const edges = page.data.map((node) => ({ cursor: cursorOf(key(node)), node }));
  return {
    edges,
    pageInfo: { hasNextPage: page.nextCursor !== null, hasPreviousPage: false, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
  };
}
const walletConnection = (page: Paged<ConsoleWalletView>) => connection(page, (w) => ({ createdAt: w.createdAt, id: w.id }));
const transactionConnection = (page: Paged<TransactionNode>) => connection(page, (t) => ({ createdAt: t.createdAt, id: t.transactionId }));
const yieldOperationConnection = (page: Paged<ConsoleYieldOperationView>) => connection(page, (o) => ({ createdAt: o.createdAt, id: o.id }));
const optionalId = (value: string | number | null | undefined) => (value === null || value === undefined ? undefined : String(value));

const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Objects: {
    Project: ProjectView;
    Wallet: ConsoleWalletView;
    Transaction: TransactionNode;
    Monitoring: Monitoring;
    WebhookDelivery: TransactionDeliveryView;
    WebhookAttempt: DeliveryAttemptView;
    PageInfo: Connection<unknown>['pageInfo'];
    WalletEdge: Connection<ConsoleWalletView>['edges'][number];
    WalletConnection: Connection<ConsoleWalletView>;
    TransactionEdge: Connection<TransactionNode>['edges'][number];
    TransactionConnection: Connection<TransactionNode>;
    YieldOperation: ConsoleYieldOperationView;
    YieldStep: ConsoleYieldOperationView['transactions'][number];
    YieldOperationError: NonNullable<ConsoleYieldOperationView['error']>;
    YieldOperationEdge: Connection<ConsoleYieldOperationView>['edges'][number];
    YieldOperationConnection: Connection<ConsoleYieldOperationView>;
  };
}>({ defaultFieldNullability: false });

builder.objectType('PageInfo', {
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage'),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage'),
    startCursor: t.exposeString('startCursor', { nullable: true }),
    endCursor: t.exposeString('endCursor', { nullable: true }),
  }),
});

builder.objectType('Project', {
  fields: (t) => ({
    projectId: t.exposeID('projectId'),
    name: t.exposeString('name'),
    createdAt: t.exposeString('createdAt'),
    walletCount: t.exposeInt('walletCount'),
    apiKeyCount: t.exposeInt('apiKeyCount'),
  }),
});


builder.objectType('Wallet', {
  description: "A wallet of one of the partner's projects: the REST wallet view plus its project and claim state",
  fields: (t) => ({
    id: t.exposeID('id'),
    projectId: t.exposeID('projectId'),
    type: t.exposeString('type'),
    scheme: t.exposeString('scheme'),
    status: t.exposeString('status'),
    createdAt: t.exposeString('createdAt'),
    address: t.exposeString('address'),
    publicKey: t.exposeString('publicKey'),
    userIdentifier: t.exposeString('userIdentifier'),
    userIdentifierType: t.exposeString('userIdentifierType'),
    cosmosPrefix: t.exposeString('cosmosPrefix', { nullable: true }),
    custody: t.exposeString('custody'),
    custodyMode: t.exposeString('custodyMode', { description: '`isolated` (joined only inside the signer) or `threshold` (never whole)' }),
    claimedAt: t.exposeString('claimedAt', { nullable: true }),
    claimedByUserId: t.exposeString('claimedByUserId', { nullable: true }),
    transactions: t.field({
      type: 'TransactionConnection',
      description: "The wallet's broadcast records, newest first",
      args: { first: t.arg.int({ required: false, description: 'Page size, 1-100 (default 20)' }),
        after: t.arg.string({ required: false, description: 'endCursor of the previous page' }), status: t.arg.string({ required: false }) },
      resolve: async (wallet, args, ctx) =>
        transactionConnection(
          await ctx.services.console.transactions.search(principal(ctx), {
            walletId: wallet.id,
            status: (args.status ?? undefined) as never,
            limit: args.first ?? 20,
            cursor: args.after ?? undefined,
          }),
        ),
    }),
    yieldOperations: t.field({
      type: 'YieldOperationConnection',
      description: "The wallet's yield deposits and withdrawals, newest first",
      args: { first: t.arg.int({ required: false, description: 'Page size, 1-100 (default 20)' }),
        after: t.arg.string({ required: false, description: 'endCursor of the previous page' }), status: t.arg.string({ required: false }) },
      resolve: async (wallet, args, ctx) =>
        yieldOperationConnection(
          await ctx.services.console.yield.list(principal(ctx), {
            walletId: wallet.id,
            status: (args.status ?? undefined) as never,
            limit: args.first ?? 20,
            cursor: args.after ?? undefined,
          }),
        ),
    }),
  }),
});

builder.objectType('Monitoring', {
  description: "The monitor's view of a record: how a same-nonce race ended, and its own state",
  fields: (t) => ({
    chainOutcome: t.exposeString('chainOutcome', { nullable: true }),
    winningHash: t.exposeString('winningHash', { nullable: true }),
    winningStatus: t.exposeString('winningStatus', { nullable: true }),
    state: t.exposeString('state', { nullable: true }),
  }),
});

builder.objectType('WebhookAttempt', {
  fields: (t) => ({
    attemptedAt: t.exposeString('attemptedAt'),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs'),
    error: t.exposeString('error', { nullable: true }),
  }),
});

builder.objectType('WebhookDelivery', {
  description: 'One event of a record and one endpoint it went to; status `not_sent` when no endpoint got it',
  fields: (t) => ({
    eventId: t.exposeString('eventId'),
    type: t.exposeString('type'),
    createdAt: t.exposeString('createdAt'),
    dispatched: t.exposeBoolean('dispatched', { description: 'false while the event waits for the dispatcher; `not_sent` with true: no enabled endpoint subscribed to it' }),
    deliveryId: t.exposeID('deliveryId', { nullable: true }),
    apiKeyId: t.exposeID('apiKeyId', { nullable: true }),
    url: t.exposeString('url', { nullable: true }),
    status: t.exposeString('status'),
    deliveredAt: t.exposeString('deliveredAt', { nullable: true }),
    nextAttemptAt: t.exposeString('nextAttemptAt', { nullable: true }),
    attempts: t.field({ type: ['WebhookAttempt'], resolve: (d) => d.attempts }),
  }),
});

type AutoRetry = NonNullable<ConsoleTransactionView['autoRetry']>;

const transactionAttempt = builder.objectRef<AutoRetry['attempts'][number]>('TransactionAttempt');
transactionAttempt.implement({
  description: 'One attempt of a payment: the original broadcast, a fee replacement (EVM), a rebuild (Solana), or a sponsored submission',
  fields: (t) => ({
    hash: t.string({ nullable: true, resolve: (a) => a.hash }),
    userOperationHash: t.string({ nullable: true, description: 'Sponsored records: the user operation it carried', resolve: (a) => a.userOperationHash ?? null }),
    maxFeePerGas: t.string({ nullable: true, resolve: (a) => a.maxFeePerGas ?? null }),
    maxPriorityFeePerGas: t.string({ nullable: true, resolve: (a) => a.maxPriorityFeePerGas ?? null }),
    recentBlockhash: t.string({ nullable: true, resolve: (a) => a.recentBlockhash ?? null }),
    sentAt: t.exposeString('sentAt'),
    outcome: t.exposeString('outcome'),
  }),
});

const transactionAutoRetry = builder.objectRef<AutoRetry>('TransactionAutoRetry');
transactionAutoRetry.implement({
  description: 'Managed automatic retry of the record (REST `autoRetry`)',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    maxFeePerGas: t.string({ nullable: true, resolve: (r) => r.maxFeePerGas }),
    attempts: t.field({ type: [transactionAttempt], resolve: (r) => r.attempts }),
    reason: t.string({ nullable: true, resolve: (r) => r.reason ?? null }),
  }),
});

const batchCall = builder.objectRef<NonNullable<ConsoleTransactionView['calls']>[number]>('BatchCall');
batchCall.implement({
  description: 'One call of a batch record (intentKind calls), in the order its transaction ran them',
  fields: (t) => ({
    to: t.exposeString('to'),
    value: t.exposeString('value', { description: 'Wei, decimal' }),
    data: t.exposeString('data'),
    selector: t.exposeString('selector', { nullable: true }),
  }),
});

builder.objectType('Transaction', {
  description: 'A broadcast transaction record (the REST lookup shape) with its wallet and webhook deliveries',
  fields: (t) => ({
    transactionId: t.exposeID('transactionId'),
    walletId: t.exposeID('walletId'),
    projectId: t.exposeID('projectId'),
    walletType: t.exposeString('walletType'),
    intentKind: t.exposeString('intentKind'),
    status: t.exposeString('status'),
    createdAt: t.exposeString('createdAt'),
    chainId: t.exposeString('chainId', { nullable: true }),
    network: t.exposeString('network', { nullable: true }),
    to: t.exposeString('to', { nullable: true }),
    value: t.exposeString('value', { nullable: true }),
    tokenAddress: t.exposeString('tokenAddress', { nullable: true }),
    hash: t.exposeString('hash', { nullable: true }),
    nonce: t.exposeInt('nonce', { nullable: true }),
    blockNumber: t.exposeString('blockNumber', { nullable: true }),
    blockHash: t.exposeString('blockHash', { nullable: true }),
    failureStage: t.exposeString('failureStage', { nullable: true }),
    failureCode: t.exposeString('failureCode', { nullable: true }),
    failureMessage: t.exposeString('failureMessage', { nullable: true }),
    submittedAt: t.exposeString('submittedAt', { nullable: true }),
    resolvedAt: t.exposeString('resolvedAt', { nullable: true }),
    cancellationOf: t.exposeID('cancellationOf', { nullable: true }),
    serviceInitiated: t.exposeString('serviceInitiated', {
      nullable: true,
      description: 'nonce_gap_filler on a zero-value self-transfer the service sent at a nonce nothing held, so the transactions queued behind it could land',
    }),
    executionMode: t.exposeString('executionMode', { description: 'legacy (the wallet sent its own transaction) or sponsored (a user operation whose gas the service paid)' }),
    stage: t.string({ nullable: true, description: 'Sponsored records: the operation stage', resolve: (r) => r.stage ?? null }),
    reviewId: t.string({ nullable: true, description: 'Sponsored records: the partner review the operation waits for', resolve: (r) => r.reviewId ?? null }),
    userOperationHash: t.string({ nullable: true, description: 'Sponsored records: the ERC-4337 user operation hash', resolve: (r) => r.userOperationHash ?? null }),
    actualGasCost: t.string({ nullable: true, description: 'Sponsored records: the gas the sponsor paid, wei as a decimal string', resolve: (r) => r.actualGasCost ?? null }),
    monitoring: t.field({ type: 'Monitoring', nullable: true, resolve: (r) => r.monitoring ?? null }),
    calls: t.field({ type: [batchCall], nullable: true, description: 'Batch records: each call', resolve: (r) => r.calls ?? null }),
    autoRetry: t.field({ type: transactionAutoRetry, nullable: true, description: 'Single lookups: managed retry and every attempt', resolve: (r) => r.autoRetry ?? null }),
    wallet: t.field({
      type: 'Wallet',
      resolve: (r, _args, ctx) => ctx.services.console.wallets.get(principal(ctx), { walletId: r.walletId }),
    }),
    webhookDeliveries: t.field({
      type: ['WebhookDelivery'],
      description: "The record's events and each endpoint delivery with its attempts",
      resolve: async (r, _args, ctx) => r.webhookDeliveries ?? ctx.services.console.transactions.webhookDeliveries(principal(ctx), r.transactionId),
    }),
  }),
});

builder.objectType('YieldOperationError', {
  fields: (t) => ({
    code: t.exposeString('code'),
    message: t.exposeString('message', { nullable: true }),
    reviewId: t.exposeString('reviewId', { nullable: true }),
  }),
});

builder.objectType('YieldStep', {
  description: "A signed transaction of a yield operation (REST: the operation's `transactions`)",
  fields: (t) => ({
    phase: t.exposeString('phase'),
    hash: t.exposeString('hash'),
    nonce: t.exposeInt('nonce'),
    transactionId: t.exposeID('transactionId'),
    status: t.exposeString('status'),
    blockNumber: t.exposeInt('blockNumber', { nullable: true }),
    blockHash: t.exposeString('blockHash', { nullable: true }),
    transaction: t.field({
      type: 'Transaction',
      description: 'The transaction record of this step (intentKind `yield`)',
      resolve: (step, _args, ctx) => ctx.services.console.transactions.record(principal(ctx), step.transactionId),
    }),
  }),
});

builder.objectType('YieldOperation', {
  description: 'A yield deposit or withdrawal (the REST operation body) with its project, steps and wallet',
  fields: (t) => ({
    id: t.exposeID('id'),
    projectId: t.exposeID('projectId'),
    walletId: t.exposeID('walletId'),
    chainId: t.exposeInt('chainId'),
    marketId: t.exposeString('marketId'),
    source: t.exposeString('source'),
    action: t.exposeString('action'),
    amount: t.exposeString('amount'),
    status: t.exposeString('status'),
    cancellable: t.exposeBoolean('cancellable', { description: 'Unsigned work an owner or developer may cancel in the console' }),
    error: t.field({ type: 'YieldOperationError', nullable: true, resolve: (o) => o.error ?? null }),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
    transactions: t.field({ type: ['YieldStep'], resolve: (o) => o.transactions }),
    wallet: t.field({
      type: 'Wallet',
      resolve: (o, _args, ctx) => ctx.services.console.wallets.get(principal(ctx), { walletId: o.walletId }),
    }),
  }),
});

for (const [name, node] of [
  ['Wallet', 'Wallet'],
  ['Transaction', 'Transaction'],
  ['YieldOperation', 'YieldOperation'],
] as const) {
  builder.objectType(`${name}Edge`, {
    fields: (t) => ({ cursor: t.exposeString('cursor'), node: t.field({ type: node, resolve: (edge) => edge.node as never }) }),
  });
  builder.objectType(`${name}Connection`, {
    fields: (t) => ({
      edges: t.field({ type: [`${name}Edge`], resolve: (c) => c.edges as never }),
      pageInfo: t.field({ type: 'PageInfo', resolve: (c) => c.pageInfo }),
    }),
  });
}

builder.queryType({
  description: "Read-only lookups for support teams, across every project of the signed-in staff member's partner",
  fields: (t) => ({
    projects: t.field({ type: ['Project'], resolve: (_root, _args, ctx) => ctx.services.console.projects.list(principal(ctx)) }),
    wallet: t.field({
      type: 'Wallet',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => ctx.services.console.wallets.get(principal(ctx), { walletId: String(args.id) }),
    }),
    wallets: t.field({
      type: 'WalletConnection',
      description: 'Wallets by address or user identifier (exact), newest first',
      args: {
        first: t.arg.int({ required: false, description: 'Page size, 1-100 (default 20)' }),
        after: t.arg.string({ required: false, description: 'endCursor of the previous page' }),
        address: t.arg.string({ required: false }),
        userIdentifier: t.arg.string({ required: false }),
        projectId: t.arg.id({ required: false }),
      },
      resolve: async (_root, args, ctx) =>
        walletConnection(
          await ctx.services.console.wallets.list(principal(ctx), {
            address: args.address ?? undefined,
            userIdentifier: args.userIdentifier ?? undefined,
            projectId: args.projectId === null || args.projectId === undefined ? undefined : String(args.projectId),
            limit: args.first ?? 20,
            cursor: args.after ?? undefined,
          }),
        ),
    }),
    transaction: t.field({
      type: 'Transaction',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => ctx.services.console.transactions.record(principal(ctx), String(args.id)),
    }),
    transactionByHash: t.field({
      type: 'Transaction',
      description: 'The newest record with this on-chain hash (EVM hashes case-insensitively)',
      args: { hash: t.arg.string({ required: true }) },
      resolve: (_root, args, ctx) => ctx.services.console.transactions.byHash(principal(ctx), args.hash),
    }),
    transactions: t.field({
      type: 'TransactionConnection',
      description: 'Records by hash, wallet or status, newest first',
      args: {
        first: t.arg.int({ required: false, description: 'Page size, 1-100 (default 20)' }),
        after: t.arg.string({ required: false, description: 'endCursor of the previous page' }),
        hash: t.arg.string({ required: false }),
        walletId: t.arg.id({ required: false }),
        status: t.arg.string({ required: false }),
        projectId: t.arg.id({ required: false }),
      },
      resolve: async (_root, args, ctx) =>
        transactionConnection(
          await ctx.services.console.transactions.search(principal(ctx), {
            hash: args.hash ?? undefined,
            walletId: args.walletId === null || args.walletId === undefined ? undefined : String(args.walletId),
            projectId: args.projectId === null || args.projectId === undefined ? undefined : String(args.projectId),
            status: (args.status ?? undefined) as never,
            limit: args.first ?? 20,
            cursor: args.after ?? undefined,
          }),
        ),
    }),
    yieldOperation: t.field({
      type: 'YieldOperation',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => ctx.services.console.yield.get(principal(ctx), { operationId: String(args.id) }),
    }),
    yieldOperations: t.field({
      type: 'YieldOperationConnection',
      description: 'Yield deposits and withdrawals by project, wallet or status, newest first',
      args: {
        first: t.arg.int({ required: false, description: 'Page size, 1-100 (default 20)' }),
        after: t.arg.string({ required: false, description: 'endCursor of the previous page' }),
        status: t.arg.string({ required: false }),
        projectId: t.arg.id({ required: false }),
        walletId: t.arg.id({ required: false }),
      },
      resolve: async (_root, args, ctx) =>
        yieldOperationConnection(
          await ctx.services.console.yield.list(principal(ctx), {
            projectId: optionalId(args.projectId),
            walletId: optionalId(args.walletId),
            status: (args.status ?? undefined) as never,
            limit: args.first ?? 20,
            cursor: args.after ?? undefined,
          }),
        ),
    }),
  }),
});

/** The builder's type, for the files that add their types and fields (authorization-scopes.ts, approval-cases.ts, search.ts, request-log.ts). */
export type SchemaBuilderOf = typeof builder;

addAuthorizationScopeFields(builder, principal);
addApprovalCaseFields(builder, principal);
addSearchFields(builder, principal);
addRequestLogFields(builder, principal);
addSponsorshipFields(builder, principal);
addBalanceFields(builder, principal);

/** The support schema: queries only (no mutations). */
export const graphqlSchema = builder.toSchema();
