import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const preload = fileURLToPath(new URL('./exit-with-parent.cjs', import.meta.url));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('exit-with-parent (preloaded into the console processes)', () => {
  it('ends a process when the process that started it is SIGKILLed, and not before', async () => {
    // parent -> grandchild; the grandchild watches the parent's pid through the preload.
    const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
        env: { ...process.env, EXIT_WITH_PARENT_PID: String(process.pid), NODE_OPTIONS: '--require ' + JSON.stringify(${JSON.stringify(preload)}) },
        stdio: 'ignore', detached: true,
      });
      console.log(child.pid);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const grandchild = await new Promise<number>((resolve) => parent.stdout!.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect(alive(grandchild)).toBe(true);
      parent.kill('SIGKILL');
      const deadline = Date.now() + 5000;
      while (alive(grandchild) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(alive(grandchild)).toBe(false);
    } finally {
      if (alive(grandchild)) process.kill(grandchild, 'SIGKILL');
      parent.kill('SIGKILL');
    }
  });
});
