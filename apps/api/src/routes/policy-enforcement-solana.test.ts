import { randomBytes } from 'node:crypto';
import {
  AccountRole,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
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
  type Instruction,
  type SignatureBytes,
} from '@solana/kit';
import { getAssignInstruction, getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { denial, examplePolicy, guardrail, policyProject, traces, type PolicyProject } from '../testing/policy-fixtures.ts';

const DEVNET = 'SOLANA_DEVNET';
const LAMPORTS_PER_SOL = 1_000_000_000n;
const newAddress = async () => (await generateKeyPairSigner()).address;

/** A v0 transaction with `feePayer` as fee payer and a random blockhash (signing without broadcast checks none). */
function buildTransaction(feePayer: string, instructions: Instruction[]): string {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer as Address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(getBase58Decoder().decode(randomBytes(32))), lastValidBlockHeight: 100n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString('base64');
}

const solTransfer = (from: string, to: string, amount: bigint) => getTransferSolInstruction({ source: from as never, destination: to as Address, amount });

/** The wallet's Ed25519 signature in a signed wire transaction, verified over its message bytes. */
async function signedByWallet(signedTransaction: string, wallet: string): Promise<boolean> {
  const decoded = getTransactionDecoder().decode(Buffer.from(signedTransaction, 'base64'));
  const signature = decoded.signatures[wallet as Address];
  if (!signature) return false;
  return verifySignature(await getPublicKeyFromAddress(solanaAddress(wallet)), signature, decoded.messageBytes);
}


/**
 * Guardrails on the Solana routes over real HTTP: the transfer route (SOL and SPL against the
 * LiteSVM devnet and its USDC mint), sign-transaction of transactions built here, and the raw
 * signature default (sign-raw and sign-message are raw on Solana).
 */
describe.each(testDatabaseKinds)('policy enforcement on Solana wallets (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let mint: string;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets });
    mint = devnets.directory.list().find((c) => c.type === 'SOLANA')!.usdc!.address;
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  const funded = async (project: PolicyProject, usdcUnits = 0n) => {
    const w = await project.wallet('SOLANA');
    await devnets.faucet.fund({ type: 'SOLANA', address: w.address }, 'native', 2n * LAMPORTS_PER_SOL);
    if (usdcUnits > 0n) await devnets.faucet.fund({ type: 'SOLANA', address: w.address }, 'usdc', usdcUnits);
    return w;
  };

  it('SOL transfer route: recipients by address and a per-transfer cap, under a solana:devnet selector', async () => {
    const p = await policyProject(app);
    const payee = await newAddress();
    await p.apply(
      guardrail('sol-guard', 'SOLANA', [
        { id: 'recipients', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.to', op: 'nin', value: [payee] } },
        { id: 'per-transfer', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: '100000000' } },
      ], { chainId: ['solana:devnet'] }),
    );
    // Another network's policy does not apply to SOLANA_DEVNET requests.
    await p.apply(guardrail('testnet-only', 'SOLANA', [{ id: 'no-transfers', effect: 'deny', actions: ['transfer'] }], { chainId: ['solana:testnet'] }));
    const w = await funded(p);
    const transfer = (to: string, value: bigint) => p.post(`/v1/wallets/${w.id}/transfer`, { to, value: value.toString(), network: DEVNET });

    const ok = await transfer(payee, 100_000_000n);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const before = await traces(app, w.id);
    expect(before).toMatchObject({ signatures: 1, records: 1 });

    const other = await newAddress();
    const unlisted = await transfer(other, 1n);
    expect(unlisted.status).toBe(403);
    expect(unlisted.body).toEqual({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('recipients'),
      reason: 'rule-matched',
      deniedBy: [denial('sol-guard', 'recipients')],
    });
    expect((await transfer(payee, 100_000_001n)).body.deniedBy).toEqual([denial('sol-guard', 'per-transfer')]);
    expect((await transfer(other, LAMPORTS_PER_SOL)).body.deniedBy).toEqual([denial('sol-guard', 'recipients'), denial('sol-guard', 'per-transfer')]);
    expect(await traces(app, w.id)).toEqual(before);
  });

  it('SPL transfer route: mint allowlist, recipients by owner, per-transfer cap and a daily spend.token meter of the mint', async () => {
    const p = await policyProject(app);
    const payee = await newAddress();
    await p.apply(
      guardrail('usdc-guard', 'SOLANA', [
        { id: 'mint', effect: 'deny', actions: ['transfer'], condition: { not: { fact: 'request.token.address', op: 'in', value: [mint] } } },
        { id: 'recipients', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.to', op: 'nin', value: [payee] } },
        { id: 'cap', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.token.value.baseUnits', op: 'gt', value: '2000000' } },
        { id: 'daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.token', asset: mint, window: '1d' }, op: 'gt', value: '3000000' } },
      ], { chainId: ['solana:devnet'] }),
    );
    const w = await funded(p, 10_000_000n);
    const transfer = (to: string, value: bigint, tokenAddress?: string) =>
      p.post(`/v1/wallets/${w.id}/transfer`, { to, value: value.toString(), network: DEVNET, ...(tokenAddress ? { tokenAddress } : {}) });

    // SOL is not the allowlisted mint (a native leg has no token address).
    expect((await transfer(payee, 1000n)).body.deniedBy).toEqual([denial('usdc-guard', 'mint')]);
    // The leg's payee is the owner the partner named, not its token account.
    expect((await transfer(await newAddress(), 1n, mint)).body.deniedBy).toEqual([denial('usdc-guard', 'recipients')]);
    expect((await transfer(payee, 2_500_000n, mint)).body.deniedBy).toEqual([denial('usdc-guard', 'cap')]);
    const sent = await transfer(payee, 2_000_000n, mint);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect((await transfer(payee, 1_000_000n, mint)).status).toBe(200); // 3 USDC: at the limit, not over it
    const before = await traces(app, w.id);
    expect(before).toMatchObject({ signatures: 2, records: 2 });

    const overDaily = await transfer(payee, 1n, mint);
    expect(overDaily.status, JSON.stringify(overDaily.body)).toBe(403);
    expect(overDaily.body.deniedBy).toEqual([denial('usdc-guard', 'daily', 'spend-limit-exceeded')]);
    expect(await traces(app, w.id)).toEqual(before);

    const usage = await p.get(`/v1/permissions-v2/wallets/${w.id}/policies/usdc-guard/usage?chainId=solana:devnet&tokenAddress=${mint}`);
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body.meters).toEqual([
      expect.objectContaining({ ruleId: 'daily', meter: 'spend.token', asset: mint, window: '1d', limit: '3000000', spent: '3000000', reserved: '0', remaining: '0' }),
    ]);
    // Another network's meter of the same wallet is untouched.
    const testnet = await p.get(`/v1/permissions-v2/wallets/${w.id}/policies/usdc-guard/usage?chainId=solana:testnet&tokenAddress=${mint}`);
    expect(testnet.body.meters).toEqual([expect.objectContaining({ spent: '0', remaining: '3000000' })]);
  });

  it('sign-transaction of transactions built here: recipients and a mint denylist; an unknown program is undecidable and denied', async () => {
    const p = await policyProject(app);
    const w = await p.wallet('SOLANA');
    const payee = await newAddress();
    const payeeTokenAccount = await newAddress();
    const otherMint = await newAddress();
    await p.apply(
      guardrail('tx-guard', 'SOLANA', [
        { id: 'recipients', effect: 'deny', actions: ['sign_transaction'], condition: { fact: 'request.to', op: 'nin', value: [payee, payeeTokenAccount] } },
        { id: 'no-other-mint', effect: 'deny', actions: ['sign_transaction'], condition: { fact: 'request.token.address', op: 'eq', value: otherMint } },
      ], { chainId: ['solana:devnet'] }),
    );
    const sign = (instructions: Instruction[], network: string | undefined = DEVNET) =>
      p.post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: buildTransaction(w.address, instructions), ...(network ? { network } : {}) });
    const splTransfer = (tokenMint: string, destination: string) =>
      getTransferCheckedInstruction({ source: payeeTokenAccount as Address, mint: tokenMint as Address, destination: destination as Address, authority: w.address as Address, amount: 5n, decimals: 6 });

    const sol = await sign([solTransfer(w.address, payee, 1_000_000n)]);
    expect(sol.status, JSON.stringify(sol.body)).toBe(200);
    expect(await signedByWallet(sol.body.signedTransaction, w.address)).toBe(true);
    expect((await sign([splTransfer(mint, payeeTokenAccount)])).status).toBe(200);
    const before = await traces(app, w.id);
    expect(before).toMatchObject({ signatures: 2, records: 0 });

    expect((await sign([solTransfer(w.address, await newAddress(), 1n)])).body.deniedBy).toEqual([denial('tx-guard', 'recipients')]);
    expect((await sign([splTransfer(otherMint, payeeTokenAccount)])).body.deniedBy).toEqual([denial('tx-guard', 'no-other-mint')]);
    // A program the decoder does not know may move anything through CPI: neither the payee nor
    // the token can be decided, so both deny rules fail closed, even beside a listed transfer.
    const unknownProgram: Instruction = { programAddress: await newAddress(), accounts: [{ address: w.address as Address, role: AccountRole.WRITABLE_SIGNER }], data: Uint8Array.of(1, 2, 3) };
    const undecidable = await sign([solTransfer(w.address, payee, 1n), unknownProgram]);
    expect(undecidable.status).toBe(403);
    expect(undecidable.body).toMatchObject({ code: 'POLICY_DENIED', reason: 'condition-undecidable' });
    expect(undecidable.body.deniedBy).toEqual([denial('tx-guard', 'recipients', 'condition-undecidable'), denial('tx-guard', 'no-other-mint', 'condition-undecidable')]);
    // Assigning the wallet's account to another program hands it every lamport: beside a listed
    // transfer it is a movement without payee, so the allowlist cannot pass it.
    const assign = await sign([solTransfer(w.address, payee, 1n), getAssignInstruction({ account: createNoopSigner(w.address as Address), programAddress: await newAddress() })]);
    expect(assign.body.deniedBy).toEqual([denial('tx-guard', 'recipients', 'condition-undecidable')]);
    expect(await traces(app, w.id)).toEqual(before);

    // The selector names solana:devnet only: a SOLANA_TESTNET body is not judged by it.
    const testnet = await sign([solTransfer(w.address, await newAddress(), 1n)], 'SOLANA_TESTNET');
    expect(testnet.status, JSON.stringify(testnet.body)).toBe(200);
    expect(await signedByWallet(testnet.body.signedTransaction, w.address)).toBe(true);
    // Without `network` the bytes prove no cluster (they are valid on every one): the devnet
    // policy judges the request too, instead of leaving it to none (fail closed).
    const unnamed = await sign([solTransfer(w.address, await newAddress(), 1n)], undefined);
    expect(unnamed.body.deniedBy).toEqual([denial('tx-guard', 'recipients')]);
  });

  it('solana-raw.json as written allows sign-raw and sign-message while another policy turns permissions on', async () => {
    const p = await policyProject(app);
    const w = await p.wallet('SOLANA');
    const key = await getPublicKeyFromAddress(solanaAddress(w.address));
    const raw = () => p.post(`/v1/wallets/${w.id}/sign-raw`, { data: 'deadbeef' });
    const message = () => p.post(`/v1/wallets/${w.id}/sign-message`, { message: 'hello' });

    await p.apply(guardrail('recipients', 'SOLANA', [{ id: 'nobody', effect: 'deny', actions: ['transfer'] }]));
    for (const response of [await raw(), await message()]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ code: 'POLICY_DENIED', message: expect.stringContaining('Raw signatures'), reason: 'raw-signature-not-allowed', deniedBy: [{ reason: 'raw-signature-not-allowed' }] });
    }
    expect(await traces(app, w.id)).toEqual({ signatures: 0, records: 0, reservations: 0 });

    await p.apply(examplePolicy('solana-raw.json'));
    const signedRaw = await raw();
    expect(signedRaw.status, JSON.stringify(signedRaw.body)).toBe(200);
    expect(await verifySignature(key, Buffer.from(signedRaw.body.signature, 'hex') as unknown as SignatureBytes, Buffer.from('deadbeef', 'hex'))).toBe(true);
    const signedMessage = await message();
    expect(signedMessage.status).toBe(200);
    expect(await verifySignature(key, Buffer.from(signedMessage.body.signature, 'hex') as unknown as SignatureBytes, new TextEncoder().encode('hello'))).toBe(true);
    expect(await traces(app, w.id)).toMatchObject({ signatures: 2, records: 0 });

    // Without the other policy the example alone keeps permissions on and still allows.
    await p.deactivate('recipients');
    expect((await raw()).status).toBe(200);
    await p.deactivate('solana-raw');
    expect((await raw()).status).toBe(200); // no active policy: permissions off
  });
});
