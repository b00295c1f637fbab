// No secret of the CLI's environment reaches the stack. The CLI runs with a sentinel in the
// variables a CI job holds (the action's token input, GITHUB_TOKEN, the runner's own tokens,
// the publish token); then no process of the stack — the daemon, the shims (containerd) or conmon
// (CRI-O), the OCI runtime (a wrapper handler records the environment it was started with), a
// container — holds it in /proc/<pid>/environ, nor does any process during a `run`, nor any log,
// state or result file. The test process itself never holds the sentinel, so any process found
// holding it got it from the CLI. Budget: per CRI runtime one stack up (about a minute) and one
// small run.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import { createCriClient } from '../../src/cri/client.ts';
import type { CriClient } from '../../src/cri/types.ts';
import { containerConfig, podConfig } from '../../src/suites/pods.ts';
import type { BenchmarkContext } from '../../src/suites/types.ts';
import { CLI, type CliResult } from '../support/cli.ts';
import { onPath, processesUnder, realStackUnavailable, testStackName } from '../support/host.ts';
import { sharedTool } from '../support/shared-tools.ts';

const SENTINEL = `rb-sentinel-${randomBytes(12).toString('hex')}`;
const SECRET_VARS = [
  'INPUT_TOKEN',
  'GITHUB_TOKEN',
  'RB_PUBLISH_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'RB_TEST_SENTINEL',
];
const cliEnv = { ...process.env, ...Object.fromEntries(SECRET_VARS.map((v) => [v, SENTINEL])) };

const unavailable = realStackUnavailable();
if (unavailable) console.warn(`SKIPPED the secret-environment tests: ${unavailable}`);
const crio = sharedTool('cri-o/crio');
const crioMissing = !crio ? 'no shared CRI-O build' : !onPath('skopeo') ? 'skopeo is not on PATH' : null;
if (!unavailable && crioMissing) console.warn(`SKIPPED the CRI-O case: ${crioMissing}`);
const RUNC = (() => {
  for (const p of ['/usr/sbin/runc', '/usr/bin/runc', '/usr/local/sbin/runc', '/usr/local/bin/runc'])
    if (onPath(p)) return p;
  return 'runc';
})();

const work = mkdtempSync(join(tmpdir(), 'rb-secret-'));
const runtimeEnvDir = join(work, 'runtime-env');
mkdirSync(runtimeEnvDir);
// The OCI runtime as the shim or conmon starts it: it copies the environment it was given, then
// becomes the real runc (so every container works as usual).
const spy = join(work, 'runc-spy');
writeFileSync(spy, `#!/bin/sh\ncat /proc/$$/environ > ${runtimeEnvDir}/$$ 2>/dev/null\nexec ${RUNC} "$@"\n`);
chmodSync(spy, 0o755);

/**
 * Every process on the host whose environment holds the sentinel, except the CLI itself (its
 * command line names bin/runtime-bench.js; a node launcher may stand between it and us): it is
 * the one process that is meant to hold it.
 */
function sentinelHolders(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`).includes(SENTINEL)) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!cmdline.includes(CLI)) found.push(`${entry} ${cmdline.join(' ')}`);
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

/** The environment of one process as NAME=value lines (throws when it cannot be read). */
const environOf = (pid: number): string =>
  readFileSync(`/proc/${pid}/environ`, 'utf8').replaceAll('\0', '\n');

/** Files below `dir` (logs, configs, state, results) up to 8 MiB that contain the sentinel. */
function filesHolding(dir: string): { holding: string[]; scanned: number } {
  const holding: string[] = [];
  let scanned = 0;
  const walk = (d: string): void => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && statSync(p).size < 8 * 1024 * 1024) {
        scanned++;
        try {
          if (readFileSync(p).includes(SENTINEL)) holding.push(p);
        } catch {
          /* a socket or a file removed meanwhile */
        }
      }
    }
  };
  walk(dir);
  return { holding, scanned };
}

/** Runs the CLI with the sentinel in its environment, sampling every process while it runs. */
function runCliWithSecrets(args: string[]): Promise<CliResult & { holders: string[]; samples: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const holders = new Set<string>();
    let samples = 0;
    const timer = setInterval(() => {
      samples++;
      for (const h of sentinelHolders()) holders.add(h);
    }, 100);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(timer);
      resolve({ code, signal, stdout, stderr, holders: [...holders], samples });
    });
  });
}

const CASES = [
  { cri: 'containerd' as const, flags: [] as string[], socket: 'containerd.sock', helper: /containerd-shim/ },
  ...(crioMissing
    ? []
    : [
        {
          cri: 'cri-o' as const,
          flags: ['--cri', 'cri-o', '--crio', crio!],
          socket: 'crio.sock',
          helper: /conmon/,
        },
      ]),
];

describe.skipIf(unavailable !== null).each(CASES)(
  'no secret reaches a $cri stack',
  ({ cri, flags, socket, helper }) => {
    const STACK = testStackName(`secret-${cri === 'cri-o' ? 'crio' : 'ctd'}`);
    const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
    const config = join(work, `${STACK}.yaml`);
    const result = join(work, `${STACK}.json`);
    let client: CriClient;

    beforeAll(async () => {
      expect(process.env.RB_TEST_SENTINEL, 'the test process must not hold the sentinel').toBeUndefined();
      writeFileSync(
        config,
        `name: ${STACK}
stack:
  extraHandlers:
    - { name: runc-spy, binary: ${spy}, kind: runc }
targets:
  - stack: ${STACK}
    cri: ${cri}
    handlers: [runc-spy]
benchmarks: [operations.container.lifecycle]
runs: 2
warmup: 0
`,
      );
      const up = await runCliWithSecrets(['stack', 'up', '--stack', STACK, '--config', config, ...flags]);
      expect(up.code, up.stderr).toBe(0);
      expect(up.holders).toEqual([]);
      client = createCriClient('grpc', join(STATE_DIR, socket), { timeoutSeconds: 60 });
    }, 900_000);

    afterAll(async () => {
      client?.close();
      const down = await runCliWithSecrets(['stack', 'down', '--stack', STACK, '--purge']);
      expect(down.code, down.stderr).toBe(0);
      expect(processesUnder(STATE_DIR)).toEqual([]);
    }, 300_000);

    test('daemon, runtime helper, OCI runtime and container: none holds the sentinel', async () => {
      // The pod and container a benchmark makes (suites/pods.ts), started from the test process:
      // podConfig and containerConfig read only runId, logDir and images of the context.
      const ctx = {
        runId: `secret-${STACK}`,
        logDir: join(work, 'pods'),
        images: ConfigSchema.parse({}).images,
      } as unknown as BenchmarkContext;
      const marker = `${3000 + Math.floor(Math.random() * 600)}`;
      const pod = podConfig(ctx, 'secret');
      const podId = await client.runPodSandbox(pod, 'runc-spy');
      const id = await client.createContainer(podId, containerConfig(ctx, 'sleeper', ['sleep', marker]), pod);
      await client.startContainer(id);

      const state = JSON.parse(readFileSync(join(STATE_DIR, 'stack.json'), 'utf8')) as { pid: number };
      const helpers = processesUnder(STATE_DIR)
        .filter((l) => helper.test(l))
        .map((l) => Number(l.trim().split(/\s+/)[0]));
      const containerPids = readdirSync('/proc')
        .filter((e) => /^\d+$/.test(e))
        .filter((e) => {
          try {
            return readFileSync(`/proc/${e}/cmdline`, 'utf8') === `sleep\0${marker}\0`;
          } catch {
            return false;
          }
        })
        .map(Number);
      // Each kind of process was found and its environment read: the check below covers them.
      expect(helpers.length, `${cri}: no ${helper} process`).toBeGreaterThan(0);
      expect(containerPids.length, 'the container process').toBe(1);
      for (const pid of [state.pid, ...helpers, ...containerPids]) {
        const env = environOf(pid);
        expect(env, `pid ${pid}`).toMatch(/^PATH=/m);
        expect(env, `pid ${pid}`).not.toContain(SENTINEL);
      }
      const runtimeEnvs = readdirSync(runtimeEnvDir);
      expect(runtimeEnvs.length, 'the OCI runtime ran').toBeGreaterThan(0);
      for (const f of runtimeEnvs)
        expect(readFileSync(join(runtimeEnvDir, f), 'utf8'), f).not.toContain(SENTINEL);
      expect(sentinelHolders()).toEqual([]);
      await client.stopPodSandbox(podId);
      await client.removePodSandbox(podId);
    });

    test('a run with the sentinel in its environment: no process, log, state or result holds it', async () => {
      const before = readdirSync(runtimeEnvDir).length;
      const run = await runCliWithSecrets(['run', '--config', config, '--out', result]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.samples).toBeGreaterThan(0);
      expect(run.holders).toEqual([]);
      expect(readdirSync(runtimeEnvDir).length).toBeGreaterThan(before);
      expect(readFileSync(result, 'utf8')).not.toContain(SENTINEL);
      // The runtime's environments, the pods' logs of the test above, and the state dir below.
      expect(filesHolding(work).holding).toEqual([]);
      const stateFiles = filesHolding(STATE_DIR);
      expect(stateFiles.scanned).toBeGreaterThan(0);
      expect(stateFiles.holding).toEqual([]);
    });
  },
);
