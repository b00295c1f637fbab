// Ending a worker thread: asked while it is still loading its modules, it answers what it was
// sent first and then exits on its own with code 0 (never terminated, which can crash a loading
// worker's process). Ten at once, so some are surely still loading when end() is called.
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { startWorker } from '../../src/lib/worker-thread.ts';

const ECHO = fileURLToPath(new URL('../fixtures/echo-worker.ts', import.meta.url));

test('a worker asked to end while loading answers what it was sent first, then exits with code 0', async () => {
  const threads = Array.from({ length: 10 }, () => startWorker(ECHO));
  const outcomes = await Promise.all(
    threads.map(async ({ worker, end }, i) => {
      const events: string[] = [];
      worker.on('message', (m: number) => events.push(`reply ${m}`));
      worker.on('error', (e) => events.push(`error ${e.message}`));
      const code = new Promise<number>((resolve) => worker.once('exit', resolve));
      worker.postMessage(i);
      worker.postMessage(i + 100);
      await end();
      events.push(`exit ${await code}`);
      return events;
    }),
  );
  expect(outcomes).toEqual(threads.map((_, i) => [`reply ${2 * i}`, `reply ${2 * (i + 100)}`, 'exit 0']));
});

test('end() after the worker has already exited settles at once', async () => {
  const { worker, end } = startWorker(ECHO);
  const code = new Promise<number>((resolve) => worker.once('exit', resolve));
  await end();
  expect(await code).toBe(0);
  await end(); // a second call must not hang on an 'exit' that has already fired
});
