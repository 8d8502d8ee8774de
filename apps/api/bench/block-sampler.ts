/**
 * The benches' block clock: eth_blockNumber every 25 ms in a child process (its CPU is not the
 * measured process's), recording when each block number was first seen (Date.now()).
 */
import { spawn } from 'node:child_process';

const SAMPLER = `
const url = process.argv[1];
let stop = false;
process.on('message', () => { stop = true; });
process.on('disconnect', () => process.exit(0));
(async () => {
  let last = -1;
  while (!stop) {
    try {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' });
      const n = Number((await r.json()).result);
      const at = Date.now();
      if (n > last) { process.send([last < 0 ? n : last + 1, n, at]); last = n; }
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  process.send('done', () => process.disconnect());
})();`;

export function startBlockSampler(rpcUrl: string) {
  const seenAt = new Map<number, number>();
  const child = spawn(process.execPath, ['-e', SAMPLER, rpcUrl], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  child.on('message', (message: [number, number, number] | 'done') => {
    if (message === 'done') return done();
    const [from, to, at] = message;
    for (let b = from; b <= to; b++) seenAt.set(b, at);
  });
  return {
    seenAt(block: number): number {
      const at = seenAt.get(block);
      if (at === undefined) throw new Error(`block ${block} was not seen by the sampler`);
      return at;
    },
    /** The first block seen after `time`. */
    firstAfter(time: number): number {
      let first = Infinity;
      for (const [block, at] of seenAt) if (at > time && block < first) first = block;
      return first;
    },
    /** The head at `time`: the highest block seen at or before it. */
    headAt(time: number): number {
      let head = -1;
      for (const [block, at] of seenAt) if (at <= time && block > head) head = block;
      if (head < 0) throw new Error('no block seen before the first request');
      return head;
    },
    async stop() {
      child.send('stop');
      await finished;
      child.kill();
    },
  };
}
