// The thin executor of a stack's registry (registry-config.ts renders): picks a free loopback
// port, writes the registry's config and the runtime's entries for it, starts docker-registry
// with an explicit environment and its own log, waits until it answers, and stops it by pid.
// `stack up` calls startRegistry before the daemon starts (CRI-O reads registries.conf once);
// `stack down` calls stopRegistry.
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { RbError } from '../errors.ts';
import { exec, processAlive, sleep, spawnDaemon } from '../util/exec.ts';
import { childEnv } from '../util/child-env.ts';
import { terminate } from './cleanup.ts';
import { renderSignaturePolicy } from './crio-config.ts';
import { which } from '../util/path-search.ts';
import {
  parseRegistryVersion,
  registryAddress,
  registryPaths,
  renderContainerdHosts,
  renderRegistriesConf,
  renderRegistryConfig,
  type RegistryState,
} from './registry-config.ts';

/** A port the kernel considers free on 127.0.0.1 right now. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Does a distribution registry answer the API version check at `address`? */
export async function registryAnswers(address: string, timeoutMs = 2_000): Promise<boolean> {
  try {
    const r = await fetch(`http://${address}/v2/`, { signal: AbortSignal.timeout(timeoutMs) });
    await r.body?.cancel();
    return r.status === 200;
  } catch {
    return false;
  }
}

async function waitForRegistry(pid: number, address: string, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && processAlive(pid)) {
    if (await registryAnswers(address)) return true;
    await sleep(100);
  }
  return false;
}

/**
 * Writes the clients' entries (always: CRI-O's registries.conf must exist before it starts) and,
 * when docker-registry is installed, starts the registry on a free loopback port. Returns null
 * without a registry binary (the image benchmarks then report "unsupported" with the fix).
 */
export async function startRegistry(
  stateDir: string,
  log: (line: string) => void,
): Promise<RegistryState | null> {
  const paths = registryPaths(stateDir);
  await mkdir(paths.hostsDir, { recursive: true });
  await mkdir(paths.storageDir, { recursive: true });
  await mkdir(paths.registriesD, { recursive: true });
  await writeFile(paths.policyPath, renderSignaturePolicy());
  const binary = await which('docker-registry');
  if (!binary) {
    await writeFile(paths.registriesConf, renderRegistriesConf(null));
    log(
      'no docker-registry on PATH: the stack has no registry (apt-get install docker-registry for image.*)',
    );
    return null;
  }
  const versionOutput = (await exec(binary, ['--version'], { allowFailure: true })).stdout;
  const version = parseRegistryVersion(versionOutput) ?? 'unknown';
  let lastLog = '';
  // The port is free when we look and taken when the registry binds: another process may win it
  // in between, so a registry that exits at once is retried on another port.
  for (let attempt = 0; attempt < 3; attempt++) {
    const address = registryAddress(await freeLoopbackPort());
    await writeFile(paths.configPath, renderRegistryConfig(paths, Number(address.split(':')[1])));
    const hosts = renderContainerdHosts(address);
    await mkdir(join(paths.hostsDir, hosts.dir), { recursive: true });
    await writeFile(join(paths.hostsDir, hosts.dir, 'hosts.toml'), hosts.content);
    await writeFile(paths.registriesConf, renderRegistriesConf(address));
    const logFd = openSync(paths.logPath, 'a');
    let pid: number;
    try {
      pid = spawnDaemon(
        binary,
        ['serve', paths.configPath],
        logFd,
        // The allow-list every daemon gets: no REGISTRY_* variable (they override its config), no token.
        childEnv(process.env),
        paths.dir,
      );
    } finally {
      closeSync(logFd);
    }
    if (await waitForRegistry(pid, address)) {
      log(`registry ${version} on ${address} (${paths.storageDir})`);
      return {
        pid,
        address,
        binary,
        version,
        configPath: paths.configPath,
        logPath: paths.logPath,
        storageDir: paths.storageDir,
      };
    }
    await terminate(pid, 2_000);
    lastLog = (await readFile(paths.logPath, 'utf8').catch(() => '')).trim().split('\n').slice(-4).join('\n');
  }
  throw new RbError(
    'STACK_REGISTRY',
    `the stack's registry did not start. Log tail:\n${lastLog}`,
    `see ${paths.logPath}`,
  );
}

/** Stops the registry by its recorded pid; returns the problems met (none when it is gone). */
export async function stopRegistry(registry: RegistryState): Promise<string[]> {
  if (registry.pid === null || !processAlive(registry.pid)) return [];
  return (await terminate(registry.pid, 5_000)) ? [] : [`registry ${registry.pid} did not exit`];
}
