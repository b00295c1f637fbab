// A small pool of compute worker threads (compute-worker.ts): each task goes to the next idle
// worker, and its promise settles with the task's result (or its error, as an Error).
import type { Worker } from 'node:worker_threads';
import type { ComputeTask } from './compute-worker.ts';
import { startWorker, type WorkerThread } from './worker-thread.ts';

export class ComputePool {
  private readonly idle: Worker[] = [];
  private readonly queue: { task: ComputeTask; resolve: (v: unknown) => void; reject: (e: Error) => void }[] =
    [];
  private readonly threads: WorkerThread[];
  private nextId = 0;

  constructor(workerFile: string, size: number) {
    this.threads = Array.from({ length: size }, () => startWorker(workerFile));
    for (const { worker } of this.threads) {
      // A compute worker never keeps the process alive: the build ends when its pages are done.
      worker.unref();
      this.idle.push(worker);
    }
  }

  run<T>(task: ComputeTask): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ task, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!;
      const { task, resolve, reject } = this.queue.shift()!;
      const id = this.nextId++;
      const onMessage = (m: { id: number; result?: unknown; error?: string }) => {
        if (m.id !== id) return;
        worker.off('message', onMessage);
        worker.off('error', onError);
        this.idle.push(worker);
        if (m.error !== undefined) reject(new Error(m.error));
        else resolve(m.result);
        this.pump();
      };
      const onError = (e: Error) => {
        worker.off('message', onMessage);
        reject(e);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ id, task });
    }
  }

  /** Ends every worker after the tasks it was already given. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.end()));
  }
}
