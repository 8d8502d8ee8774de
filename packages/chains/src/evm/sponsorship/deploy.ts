/**
 * The sponsorship contracts on a local anvil: EntryPoint v0.8 and Simple7702Account at their
 * canonical addresses and a SingletonPaymasterV8 whose owner, manager and signer is the sponsor,
 * all through the deterministic CREATE2 deployer anvil predeploys. They are sent by dev account #1
 * so that dev account #0's nonces (TestUSDC at nonce 0, the yield markets after it) stay put, under
 * the same send lock and automine switch as the yield deployment.
 */
import { concat, createPublicClient, createWalletClient, encodeFunctionData, getAddress, getCreate2Address, http, type Address, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { writeFileAtomic } from '../../atomic-file.ts';
import { evmGenesisHash, hasCode, readRecord, rpc } from '../deployments.ts';
import { localChain, withSendLock } from '../dev-account.ts';
import { withAutomine } from '../yield/send.ts';
import { entryPointArtifact, simple7702AccountArtifact, singletonPaymasterV8 } from './artifacts.ts';
import { ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS } from './constants.ts';
import { paymasterDeposit } from './paymaster-deposit.ts';

/** Anvil dev account #1 (0x70997970C51812dc3A010C7d01b50e0d17dc79C8). Local devnets only. */
export const SPONSORSHIP_DEPLOYER_PRIVATE_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** Arachnid's deterministic deployment proxy: calldata = salt ‖ init code, creates with CREATE2. */
export const CREATE2_DEPLOYER_ADDRESS: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
/** The salts that give the canonical (mainnet) addresses. */
export const ENTRY_POINT_V08_SALT: Hex = '0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9';
export const ZERO_SALT: Hex = `0x${'0'.repeat(64)}`;

export interface SponsorshipDeployment {
  chainId: number;
  entryPoint: Address;
  /** Simple7702Account, the contract sponsored wallets delegate to. */
  delegate: Address;
  /** SingletonPaymasterV8 (verifying mode); its address depends on the sponsor. */
  paymaster: Address;
  /** Owner, manager and signer of the paymaster. */
  sponsor: Address;
}

export interface DeploySponsorshipOptions {
  /** Default: the node's eth_chainId. */
  chainId?: number;
  /** The key that signs sponsorships (paymaster owner = manager = signer). */
  sponsorAddress: Address;
  /** The paymaster's EntryPoint deposit is raised to at least this (never lowered). */
  depositWei: bigint;
}

function deployerClients(rpcUrl: string, chainId: number) {
  const chain = localChain(rpcUrl, chainId);
  const transport = http(rpcUrl);
  const account = privateKeyToAccount(SPONSORSHIP_DEPLOYER_PRIVATE_KEY);
  return {
    account,
    public: createPublicClient({ chain, transport, pollingInterval: 50 }),
    wallet: createWalletClient({ account, chain, transport, pollingInterval: 50 }),
  };
}

type DeployerClients = ReturnType<typeof deployerClients>;

async function submit(c: DeployerClients, to: Address, data: Hex, value = 0n): Promise<Hex> {
  const request = { account: c.account, to, data, value };
  const gas = ((await c.public.estimateGas(request)) * 12n) / 10n;
  const nonce = await c.public.getTransactionCount({ address: c.account.address, blockTag: 'pending' });
  return c.wallet.sendTransaction({ ...request, gas, nonce });
}

async function mined(c: DeployerClients, hash: Hex, what: string): Promise<void> {
  const receipt = await c.public.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== 'success') throw new Error(`${what}: transaction ${hash} reverted`);
}

/** Under the send lock and automine, where the receipt exists once the send returns. */
const send = async (c: DeployerClients, to: Address, data: Hex, what: string, value = 0n) => mined(c, await submit(c, to, data, value), what);

/** Deploys `initCode` with `salt` unless the CREATE2 address already has code; returns that address. */
async function create2(rpcUrl: string, c: DeployerClients, salt: Hex, initCode: Hex, what: string, expected?: Address): Promise<Address> {
  const address = getCreate2Address({ from: CREATE2_DEPLOYER_ADDRESS, salt, bytecode: initCode });
  if (expected && address !== expected) throw new Error(`${what}: the artifact gives ${address}, not the canonical ${expected}`);
  if (await hasCode(rpcUrl, address)) return address;
  await send(c, CREATE2_DEPLOYER_ADDRESS, concat([salt, initCode]), what);
  if (!(await hasCode(rpcUrl, address))) throw new Error(`${what}: no code at ${address} after deployment`);
  return address;
}

/**
 * Deploys what is missing (contracts with code at their address are kept), then raises the
 * paymaster's deposit to `depositWei`. Needs automine or whole-second interval mining.
 */
export async function deploySponsorshipContracts(rpcUrl: string, opts: DeploySponsorshipOptions): Promise<SponsorshipDeployment> {
  const chainId = opts.chainId ?? Number(BigInt(await rpc<Hex>(rpcUrl, 'eth_chainId')));
  const sponsor = getAddress(opts.sponsorAddress);
  if (opts.depositWei < 0n) throw new Error('depositWei must be >= 0');
  const paymasterCode = await singletonPaymasterV8();
  if (!(await hasCode(rpcUrl, CREATE2_DEPLOYER_ADDRESS))) {
    throw new Error(`no CREATE2 deployer at ${CREATE2_DEPLOYER_ADDRESS} on ${rpcUrl} (anvil predeploys it)`);
  }
  return withSendLock(rpcUrl, () =>
    withAutomine(rpcUrl, async () => {
      const c = deployerClients(rpcUrl, chainId);
      const entryPoint = await create2(rpcUrl, c, ENTRY_POINT_V08_SALT, entryPointArtifact().bytecode, 'EntryPoint v0.8', ENTRY_POINT_V08_ADDRESS);
      const delegate = await create2(rpcUrl, c, ZERO_SALT, simple7702AccountArtifact().bytecode, 'Simple7702Account', SIMPLE_7702_ACCOUNT_ADDRESS);
      const paymaster = await create2(rpcUrl, c, ZERO_SALT, paymasterCode.initCode(sponsor), 'SingletonPaymasterV8');
      const deposit = await paymasterDeposit(rpcUrl, entryPoint, paymaster);
      if (deposit < opts.depositWei) {
        const data = encodeFunctionData({ abi: entryPoint08Abi, functionName: 'depositTo', args: [paymaster] });
        await send(c, entryPoint, data, 'paymaster deposit', opts.depositWei - deposit);
      }
      return { chainId, entryPoint, delegate, paymaster, sponsor };
    }),
  );
}

/** Adds `amountWei` to the paymaster's EntryPoint deposit (from dev account #1); resolves with the new deposit. */
export async function topUpPaymasterDeposit(
  rpcUrl: string,
  deployment: Pick<SponsorshipDeployment, 'chainId' | 'entryPoint' | 'paymaster'>,
  amountWei: bigint,
): Promise<bigint> {
  if (amountWei <= 0n) throw new Error('amountWei must be > 0');
  const c = deployerClients(rpcUrl, deployment.chainId);
  const data = encodeFunctionData({ abi: entryPoint08Abi, functionName: 'depositTo', args: [deployment.paymaster] });
  const hash = await withSendLock(rpcUrl, () => submit(c, deployment.entryPoint, data, amountWei));
  await mined(c, hash, 'paymaster top-up');
  return paymasterDeposit(rpcUrl, deployment.entryPoint, deployment.paymaster);
}

interface SponsorshipRecord {
  genesisHash: Hex;
  deployment: SponsorshipDeployment;
}

/**
 * The deployment recorded in `file` when it belongs to this chain (same genesis hash, same sponsor)
 * and its contracts have code; otherwise a new one, then recorded (like `ensureYieldMarkets`).
 */
export async function ensureSponsorshipContracts(
  rpcUrl: string,
  file: string,
  opts: DeploySponsorshipOptions,
): Promise<{ deployment: SponsorshipDeployment; reused: boolean }> {
  const genesisHash = await evmGenesisHash(rpcUrl);
  const recorded = readRecord<SponsorshipRecord>(file);
  const known = recorded?.genesisHash === genesisHash ? recorded.deployment : undefined;
  if (known && known.sponsor === getAddress(opts.sponsorAddress)) {
    const present = await Promise.all([known.entryPoint, known.delegate, known.paymaster].map((a) => hasCode(rpcUrl, a)));
    if (present.every(Boolean)) return { deployment: known, reused: true };
  }
  const deployment = await deploySponsorshipContracts(rpcUrl, opts);
  writeFileAtomic(file, `${JSON.stringify({ genesisHash, deployment } satisfies SponsorshipRecord, null, 2)}\n`);
  return { deployment, reused: false };
}
