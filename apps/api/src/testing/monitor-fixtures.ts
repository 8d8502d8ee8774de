import { testDatabaseKinds, type DatabaseKind } from '@wallet/db';
import { getBase58Decoder, getTransactionDecoder } from '@solana/kit';
import type { ChainGateways, Clock, MonitorRunResult, SolanaGateway } from '@wallet/domain';
import { afterAll, beforeAll, expect } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from './harness.ts';

/** Shared by the monitor test files (workers/monitor-*.test.ts). */

export const EVM_CHAIN = 84532;
export const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
export const MIN = 60_000;
export { testDatabaseKinds };

export async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** A clock the test moves forward (the service and the monitor read time only through it). */
export function movableClock() {
  let offset = 0;
  const clock: Clock & { advanceTo(at: Date): void; advance(ms: number): void } = {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
    advanceTo(at) {
      const gap = at.getTime() - clock.now().getTime();
      if (gap > 0) offset += gap;
    },
  };
  return clock;
}

/** Produces blocks / slots on a timer that a test can pause to step the chain by hand. */
export function ticker(periodMs: number, tick: () => Promise<unknown>) {
  let paused = false;
  let inFlight: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (!paused) inFlight = tick().catch(() => undefined);
  }, periodMs);
  return {
    async pause() {
      paused = true;
      await inFlight;
    },
    resume() {
      paused = false;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

export interface Harness {
  app: TestApp;
  clock: ReturnType<typeof movableClock>;
  key: string;
}

export function helpers(h: () => Harness) {
  const post = (path: string, body: unknown) => h().app.request('POST', path, { key: h().key, body });
  const wallet = async (type: 'EVM' | 'SOLANA') =>
    (await h().app.request('POST', '/v1/wallets', { key: h().key, body: { type, userIdentifier: `mon-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as {
      id: string;
      address: string;
    };
  const fund = async (walletId: string, amount: string, token = 'native') => {
    const response = await post('/v1/local/faucet', { walletId, amount, token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };
  const record = async (walletId: string, transactionId: string) => (await h().app.request('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`, { key: h().key })).body;
  const row = async (id: string) =>
    (await h().app.database.query<{ status: string; consecutive_errors: number; next_check_at: Date | null; monitoring: any; check_count: number }>(
      'SELECT status, consecutive_errors, next_check_at, monitoring, check_count FROM transaction_records WHERE id = $1',
      [id],
    ))[0]!;
  const events = async (transactionOrHash: string) =>
    (await h().app.database.query<{ type: string; data: any }>(
      `SELECT type, data FROM events WHERE data->>'transactionId' = $1 OR data->>'txHash' = $1 ORDER BY created_at, id`,
      [transactionOrHash],
    ));
  /** Moves the clock to when every given record is due, then runs one monitor pass. */
  const runDue = async (ids: string[], monitor: { runOnce(): Promise<MonitorRunResult> } = h().app.services.monitor) => {
    for (const id of ids) {
      const next = (await row(id)).next_check_at;
      if (next) h().clock.advanceTo(new Date(next.getTime() + 1));
    }
    return monitor.runOnce();
  };
  /** Runs the monitor until the records are no longer pending/submitted (or gives up). */
  const resolveAll = async (ids: string[], maxRuns = 80) => {
    for (let i = 0; i < maxRuns; i++) {
      const open = [];
      for (const id of ids) if (['pending', 'submitted'].includes((await row(id)).status)) open.push(id);
      if (open.length === 0) return;
      await runDue(open);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { post, wallet, fund, record, row, events, runDue, resolveAll };
}

/**
 * The app's link to the Solana devnet, which can lose the next `n` transactions sent through it, as
 * the network or a leader can: the sender gets the signature back, the node never sees the
 * transaction. Every other call goes to the devnet unchanged.
 */
export function lossySolanaLink(gateways: ChainGateways) {
  let toLose = 0;
  const lost: string[] = [];
  const lossy = (gateway: SolanaGateway): SolanaGateway =>
    new Proxy(gateway, {
      get(target, property, receiver) {
        if (property !== 'sendTransaction') return Reflect.get(target, property, receiver);
        return async (wire: string) => {
          if (toLose === 0) return target.sendTransaction(wire);
          toLose--;
          const signature = getBase58Decoder().decode(Object.values(getTransactionDecoder().decode(Buffer.from(wire, 'base64')).signatures)[0]!);
          lost.push(signature);
          return signature;
        };
      },
    });
  return {
    gateways: { evm: (chainId: number) => gateways.evm(chainId), solana: (network: string) => { const g = gateways.solana(network); return g && lossy(g); } } as ChainGateways,
    /** Loses the next `n` sends. */
    lose(n = 1) {
      toLose = n;
    },
    /** The signatures lost so far, oldest first. */
    lost,
  };
}

/**
 * The devnet suites' setup: chains that move only when a test says so (blocks and slots come from
 * tickers it can pause), and the app on a movable clock.
 */
export function monitorDevnets(kind: DatabaseKind, options: { env?: Record<string, string>; lossySolana?: boolean } = {}) {
  const state = {} as {
    devnets: LocalDevnets;
    app: TestApp;
    key: string;
    scope: { apiKeyId: string; projectId: string };
    usdc: string;
    blocks: ReturnType<typeof ticker>;
    slots: ReturnType<typeof ticker>;
    /** With `lossySolana`: the app's Solana link, which a test can make lose sends. */
    solanaLink: ReturnType<typeof lossySolanaLink>;
  };
  const clock = movableClock();
  beforeAll(async () => {
    state.devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 3_600_000 });
    await rpc(state.devnets.evmRpcUrl, 'evm_setIntervalMining', [0]);
    state.blocks = ticker(150, () => rpc(state.devnets.evmRpcUrl, 'evm_mine'));
    state.slots = ticker(50, () => rpc(state.devnets.solanaRpcUrl, 'devnet_advanceSlots', [1]));
    state.solanaLink = lossySolanaLink(state.devnets.gateways);
    const chains = options.lossySolana ? { ...state.devnets, gateways: state.solanaLink.gateways } : state.devnets;
    state.app = await startTestApp(kind, { chains, clock, env: options.env });
    const issued = await state.app.createKey();
    state.key = issued.apiKey;
    state.scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
    state.usdc = (await state.app.request('GET', '/v1/chains', { key: state.key })).body.chains[0].usdc.address;
  });
  afterAll(async () => {
    state.blocks?.stop();
    state.slots?.stop();
    await state.app?.close();
    await state.devnets?.stop();
  });
  return {
    state,
    clock,
    ...helpers(() => ({ app: state.app, clock, key: state.key })),
    mine: async (n = 1) => {
      for (let i = 0; i < n; i++) await rpc(state.devnets.evmRpcUrl, 'evm_mine');
    },
    advanceSlots: (n = 1) => rpc(state.devnets.solanaRpcUrl, 'devnet_advanceSlots', [n]),
  };
}
