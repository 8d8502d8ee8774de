import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processAlive } from './process-alive.ts';

const preload = fileURLToPath(new URL('./exit-with-parent.cjs', import.meta.url));

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
      expect(processAlive(grandchild)).toBe(true);
      parent.kill('SIGKILL');
      const deadline = Date.now() + 5000;
      while (processAlive(grandchild) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(processAlive(grandchild)).toBe(false);
    } finally {
      if (processAlive(grandchild)) process.kill(grandchild, 'SIGKILL');
      parent.kill('SIGKILL');
    }
  });
});
