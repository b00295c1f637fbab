import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CriCallError, type CriClient } from '../../../src/cri/types.ts';
import { deathCause, isConnectionError, watchEndpoint } from '../../../src/kinds/liveness.ts';

describe('isConnectionError', () => {
  test.each([
    // gRPC transport (cri/unary-grpc.ts), containerd killed (socket file left behind)
    [
      new CriCallError(
        'Version',
        'No connection established: The pending stream has been canceled (caused by: connect ECONNREFUSED /s.sock)',
        14,
      ),
      true,
    ],
    // gRPC transport, socket removed
    [
      new CriCallError(
        'Version',
        'No connection established: The pending stream has been canceled (caused by: connect ENOENT /s.sock)',
        14,
      ),
      true,
    ],
    // gRPC transport, the daemon died mid-call
    [new CriCallError('RunPodSandbox', 'Connection dropped (ECONNRESET)', 14), true],
    // crictl 1.34 against a dead socket
    [
      new CriCallError(
        'RunPodSandbox',
        'run pod sandbox: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix /s.sock: connect: connection refused"',
      ),
      true,
    ],
    // the runtime answered: not a connection problem
    [new CriCallError('CreateContainer', 'failed to create containerd container: image not found', 2), false],
    [new CriCallError('StopContainer', 'context deadline exceeded', 4), false],
    // a broken OCI runtime: containerd answers UNKNOWN with the runtime's own ENOENT in the text
    [
      new CriCallError(
        'RunPodSandbox',
        'failed to create shim task: OCI runtime create failed: unable to retrieve OCI runtime error (open /x/log.json: no such file or directory): /x/runc did not terminate successfully: exit status 1: unknown',
        2,
      ),
      false,
    ],
    // the same through crictl: the status code is in the message
    [
      new CriCallError(
        'RunPodSandbox',
        'run pod sandbox: rpc error: code = Unknown desc = failed to create shim task: OCI runtime create failed: unable to retrieve OCI runtime error (open /x/log.json: no such file or directory): unknown',
      ),
      false,
    ],
    [new Error('sysbench exited with 1'), false],
  ])('%s → %s', (error, expected) => {
    expect(isConnectionError(error)).toBe(expected);
  });
});

describe('deathCause', () => {
  const alive = {
    socket: '/s.sock',
    socketExists: true,
    daemon: { pid: 7, alive: true },
    consecutiveConnectionErrors: 0,
  };
  test.each([
    [alive, null],
    [{ ...alive, daemon: { pid: 7, alive: false } }, /daemon \(pid 7\) of \/s\.sock is gone/],
    [{ ...alive, socketExists: false }, /socket \/s\.sock is gone/],
    [{ ...alive, daemon: null, consecutiveConnectionErrors: 2 }, null],
    [{ ...alive, daemon: null, consecutiveConnectionErrors: 3 }, /3 CRI calls in a row/],
  ])('%j', (observation, expected) => {
    const cause = deathCause(observation);
    if (expected === null) expect(cause).toBeNull();
    else expect(cause).toMatch(expected);
  });
});

/** A client whose version() fails or succeeds as told; only what the watch touches. */
function scriptedClient(answers: (Error | null)[]): CriClient {
  return {
    transport: 'grpc',
    endpoint: 'unix:///s.sock',
    version: () => {
      const a = answers.shift();
      return a
        ? Promise.reject(a)
        : Promise.resolve({ version: '', runtimeName: '', runtimeVersion: '', runtimeApiVersion: '' });
    },
    close: () => undefined,
  } as unknown as CriClient;
}

describe('watchEndpoint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rb-liveness-'));
  const socket = join(dir, 'cri.sock');
  writeFileSync(socket, '');

  test('three unreachable calls in a row make an endpoint without a pid dead; a success in between resets', async () => {
    const refused = new CriCallError('Version', 'connect ECONNREFUSED', 14);
    const causes: string[] = [];
    const w = watchEndpoint(
      scriptedClient([refused, refused, null, refused, refused, refused]),
      socket,
      null,
      (c) => causes.push(c),
    );
    for (let i = 0; i < 6; i++) await w.client.version().catch(() => undefined);
    w.stop();
    expect(causes).toEqual([`3 CRI calls in a row could not reach ${socket}`]);
    expect(w.cause).toBe(causes[0]);
  });

  test(
    'the daemon killed with SIGKILL: dead at the next check, reported once',
    { timeout: 20_000 },
    async () => {
      const daemon = spawn('sleep', ['600'], { stdio: 'ignore' });
      const causes: string[] = [];
      let stop = (): void => undefined;
      const dead = new Promise<void>((resolve) => {
        const w = watchEndpoint(
          scriptedClient([]),
          socket,
          daemon.pid!,
          (c) => {
            causes.push(c);
            resolve();
          },
          50,
        );
        stop = () => w.stop();
      });
      expect(causes).toEqual([]);
      daemon.kill('SIGKILL');
      await dead;
      stop();
      expect(causes).toEqual([`the CRI daemon (pid ${daemon.pid}) of ${socket} is gone`]);
    },
  );

  test(
    'unreachable calls while a killed daemon is still exiting: the cause names the daemon, not the calls',
    { timeout: 20_000 },
    async () => {
      const daemon = spawn('sleep', ['600'], { stdio: 'ignore' });
      const refused = new CriCallError('Version', 'connect ECONNREFUSED', 14);
      const causes: string[] = [];
      const w = watchEndpoint(scriptedClient([refused, refused, refused]), socket, daemon.pid!, (c) =>
        causes.push(c),
      );
      for (let i = 0; i < 3; i++) await w.client.version().catch(() => undefined);
      // The threshold is reached while the pid still runs: nothing is declared yet.
      expect(causes).toEqual([]);
      daemon.kill('SIGKILL');
      await expect.poll(() => causes, { timeout: 15_000 }).toHaveLength(1);
      w.stop();
      expect(causes).toEqual([`the CRI daemon (pid ${daemon.pid}) of ${socket} is gone`]);
    },
  );

  test(
    'unreachable calls while the daemon keeps running (hung): dead after the grace, by the calls',
    { timeout: 20_000 },
    async () => {
      const daemon = spawn('sleep', ['600'], { stdio: 'ignore' });
      const refused = new CriCallError('Version', 'connect ECONNREFUSED', 14);
      const causes: string[] = [];
      const w = watchEndpoint(scriptedClient([refused, refused, refused]), socket, daemon.pid!, (c) =>
        causes.push(c),
      );
      for (let i = 0; i < 3; i++) await w.client.version().catch(() => undefined);
      await expect.poll(() => causes, { timeout: 15_000 }).toHaveLength(1);
      w.stop();
      daemon.kill('SIGKILL');
      expect(causes).toEqual([`3 CRI calls in a row could not reach ${socket}`]);
    },
  );

  test('the socket removed: dead', { timeout: 20_000 }, async () => {
    const gone = join(dir, 'gone.sock');
    writeFileSync(gone, '');
    const cause = new Promise<string>((resolve) => {
      const w = watchEndpoint(
        scriptedClient([]),
        gone,
        null,
        (c) => {
          w.stop();
          resolve(c);
        },
        50,
      );
    });
    rmSync(gone);
    expect(await cause).toBe(`the CRI socket ${gone} is gone`);
  });

  test(
    'settle after one dropped call while the killed daemon is still exiting: declared dead, naming the daemon',
    { timeout: 20_000 },
    async () => {
      const daemon = spawn('sleep', ['600'], { stdio: 'ignore' });
      const dropped = new CriCallError('RunPodSandbox', 'Connection dropped', 14);
      const causes: string[] = [];
      const w = watchEndpoint(scriptedClient([dropped]), socket, daemon.pid!, (c) => causes.push(c), 60_000);
      await w.client.version().catch(() => undefined);
      // One unreachable call and a live pid: not dead by itself.
      expect(causes).toEqual([]);
      const settled = w.settle();
      daemon.kill('SIGKILL');
      await settled;
      w.stop();
      expect(causes).toEqual([`the CRI daemon (pid ${daemon.pid}) of ${socket} is gone`]);
      expect(w.cause).toBe(causes[0]);
    },
  );

  test(
    'settle: nothing to wait for after a success or without a pid; a live daemon stays alive after the grace',
    { timeout: 20_000 },
    async () => {
      const refused = new CriCallError('Version', 'connect ECONNREFUSED', 14);
      const withoutPid = watchEndpoint(scriptedClient([refused]), socket, null, () => undefined, 60_000);
      await withoutPid.client.version().catch(() => undefined);
      await withoutPid.settle();
      withoutPid.stop();
      expect(withoutPid.cause).toBeNull();

      const daemon = spawn('sleep', ['600'], { stdio: 'ignore' });
      const causes: string[] = [];
      const w = watchEndpoint(
        scriptedClient([null, refused]),
        socket,
        daemon.pid!,
        (c) => causes.push(c),
        60_000,
      );
      await w.client.version();
      let settledAfterSuccess = false;
      await w.settle().then(() => (settledAfterSuccess = true));
      expect(settledAfterSuccess).toBe(true);
      await w.client.version().catch(() => undefined);
      await w.settle();
      w.stop();
      expect(daemonAliveNow(daemon.pid!)).toBe(true);
      daemon.kill('SIGKILL');
      expect(causes).toEqual([]);
      expect(w.cause).toBeNull();
    },
  );
});

function daemonAliveNow(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
