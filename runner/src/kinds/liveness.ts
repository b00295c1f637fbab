// Noticing that a CRI endpoint died mid-run (its daemon killed, its socket removed), so that the run
// stops within seconds and says why instead of recording every remaining repetition as a connection
// error. Runtime-agnostic: it needs only the socket path and, for a local stack, the daemon's pid
// that the stack state records (containerd or crio alike). The decisions are pure functions; the
// watcher only gathers observations.
import { existsSync, readFileSync } from 'node:fs';
import type { CriClient } from '../cri/types.ts';
import { CriCallError, GrpcStatus } from '../cri/types.ts';
import { errorMessage } from '../errors.ts';
import { processAlive, sleep } from '../util/exec.ts';

/** What crictl (and gRPC's own messages) say when nothing answers on the socket. */
const UNREACHABLE =
  /code = Unavailable|connection refused|ECONNREFUSED|no such file or directory|ENOENT|connect endpoint|error while dialing|failed to connect/i;

/** The gRPC status crictl prints when the server answered: `rpc error: code = Unknown desc = …`. */
const CRICTL_CODE = /rpc error: code = (\w+)/;

/** Is this a failure to reach the endpoint at all, rather than the runtime answering with an error? */
export function isConnectionError(error: unknown): boolean {
  // A status code other than UNAVAILABLE means the runtime answered, whatever its message says
  // (a broken OCI runtime's "log.json: no such file or directory" is the runtime's error, not ours).
  if (error instanceof CriCallError && error.grpcCode !== null)
    return error.grpcCode === GrpcStatus.UNAVAILABLE;
  const message = errorMessage(error);
  const code = CRICTL_CODE.exec(message)?.[1];
  if (code !== undefined) return code === 'Unavailable';
  return UNREACHABLE.test(message);
}

export interface EndpointObservation {
  socket: string;
  socketExists: boolean;
  /** The daemon's pid and whether it still runs; null when the endpoint is not ours (no pid). */
  daemon: { pid: number; alive: boolean } | null;
  /** Calls in a row that could not reach the endpoint (any success resets it). */
  consecutiveConnectionErrors: number;
}

/** Consecutive unreachable calls after which an endpoint counts as dead even without a pid to check. */
export const DEAD_AFTER_CONNECTION_ERRORS = 3;

/**
 * How long a daemon whose socket stopped answering may take to finish exiting (see watchEndpoint).
 * A SIGKILLed Go daemon on a loaded host can need seconds to tear down its threads and memory; a
 * live daemon costs only this wait, and only after a call that could not reach it.
 */
export const DAEMON_EXIT_GRACE_MS = 5_000;

/** Why the endpoint is dead, or null while it may be alive. */
export function deathCause(o: EndpointObservation, threshold = DEAD_AFTER_CONNECTION_ERRORS): string | null {
  if (o.daemon && !o.daemon.alive) return `the CRI daemon (pid ${o.daemon.pid}) of ${o.socket} is gone`;
  if (!o.socketExists) return `the CRI socket ${o.socket} is gone`;
  if (o.consecutiveConnectionErrors >= threshold)
    return `${o.consecutiveConnectionErrors} CRI calls in a row could not reach ${o.socket}`;
  return null;
}

/** Alive and not a zombie waiting to be reaped. */
export function daemonAlive(pid: number): boolean {
  if (!processAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export interface EndpointWatch {
  /** The client to use: the same calls, each one counted. */
  client: CriClient;
  /** Why the endpoint died, once it did. */
  readonly cause: string | null;
  /**
   * After a failure, before it is recorded: if the last call could not reach the endpoint and the
   * daemon is ours, waits up to DAEMON_EXIT_GRACE_MS for it to be seen dying, and declares the
   * death if it is. The in-flight call of a killed daemon fails ("Connection dropped") before the
   * pid is gone; without this wait that failure would be recorded as the runtime's error.
   */
  settle(): Promise<void>;
  stop(): void;
}

/**
 * Watches one endpoint: checks the daemon and the socket every `intervalMs` and counts the
 * client's unreachable calls; calls `onDead(cause)` once when the endpoint is dead.
 */
export function watchEndpoint(
  client: CriClient,
  socket: string,
  pid: number | null,
  onDead: (cause: string) => void,
  intervalMs = 500,
): EndpointWatch {
  let errorsInARow = 0;
  let cause: string | null = null;
  let settling = false;
  let stopped = false;
  const observe = (): EndpointObservation => ({
    socket,
    socketExists: existsSync(socket),
    daemon: pid === null ? null : { pid, alive: daemonAlive(pid) },
    consecutiveConnectionErrors: errorsInARow,
  });
  const declare = (found: string): void => {
    if (stopped || cause) return;
    cause = found;
    clearInterval(timer);
    onDead(found);
  };
  /** Polls until the daemon or its socket is gone, at most DAEMON_EXIT_GRACE_MS; the last look. */
  const awaitDaemonExit = async (): Promise<EndpointObservation> => {
    const deadline = Date.now() + DAEMON_EXIT_GRACE_MS;
    for (;;) {
      const o = observe();
      if (!o.daemon?.alive || !o.socketExists || cause || stopped || Date.now() >= deadline) return o;
      await sleep(50);
    }
  };
  const check = (): void => {
    if (cause || settling) return;
    const o = observe();
    const found = deathCause(o);
    if (!found) return;
    // A killed daemon drops its connections before it has finished exiting, and failed calls
    // come back within a millisecond: the error count can reach its threshold while the pid still
    // runs. Give a daemon we know DAEMON_EXIT_GRACE_MS to finish dying, so the cause names it.
    if (o.daemon?.alive && deathCause({ ...o, consecutiveConnectionErrors: 0 }) === null) {
      settling = true;
      void awaitDaemonExit().then((later) => declare(deathCause(later) ?? found));
      return;
    }
    declare(found);
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  const counted = new Proxy(client, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || key === 'close') return value;
      return (...args: unknown[]): unknown => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (v: unknown) => {
            errorsInARow = 0;
            return v;
          },
          (error: unknown) => {
            if (isConnectionError(error)) {
              errorsInARow++;
              check();
            }
            throw error;
          },
        );
      };
    },
  });
  return {
    client: counted,
    get cause() {
      return cause;
    },
    settle: async () => {
      if (pid === null || errorsInARow === 0 || cause) return;
      const found = deathCause({ ...(await awaitDaemonExit()), consecutiveConnectionErrors: 0 });
      if (found) declare(found);
    },
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
