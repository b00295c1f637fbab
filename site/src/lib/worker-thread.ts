// Starting and ending the site's worker threads. A thread is never terminate()d: terminating a
// worker that is still loading its modules can crash the whole process with SIGSEGV (seen in CI
// under load; nodejs/node#56312), and a pool may well end before a spare worker has finished
// loading. Instead the parent asks the worker to end; the worker closes its port and its thread
// ends on its own once it is loaded and idle.
import { parentPort, Worker, type WorkerOptions } from 'node:worker_threads';

/** The message that asks a worker to end. */
const END = { endWorkerThread: true } as const;

export interface WorkerThread {
  worker: Worker;
  /** Asks the worker to end after what it was already sent, and settles when its thread has exited. */
  end(): Promise<void>;
}

export function startWorker(file: string, options?: WorkerOptions): WorkerThread {
  const worker = new Worker(file, options);
  // Listened for from the start: 'exit' fires once, maybe long before end() is called.
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    worker,
    end() {
      worker.postMessage(END);
      return exited;
    },
  };
}

/**
 * The worker's side: calls onMessage with each message the parent sends, and closes the port when
 * the parent asks the worker to end.
 */
export function serveParent<T>(onMessage: (message: T) => void): void {
  const port = parentPort!;
  port.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'endWorkerThread' in message) port.close();
    else onMessage(message as T);
  });
}
