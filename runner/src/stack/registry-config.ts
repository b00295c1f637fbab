// Pure rendering of a stack's image registry (the CNCF distribution registry, Debian's
// docker-registry) and of the entries that let the stack's private CRI runtime pull from it over
// plain HTTP on loopback: containerd's hosts.toml directory (config_path) and containers/image's
// registries.conf for CRI-O and skopeo. Every path is below <state dir>/registry; nothing is read
// from or written to the host's /etc.
import { join } from 'node:path';
import { z } from 'zod';

/** Where a stack's registry keeps everything (its config, storage, log and the clients' entries). */
export interface RegistryPaths {
  dir: string;
  configPath: string;
  logPath: string;
  storageDir: string;
  /** containerd's `config_path`: one directory per registry host holding its hosts.toml. */
  hostsDir: string;
  /**
   * The HOME that CRI-O and skopeo run with: containers/image reads a per-user
   * $HOME/.config/containers/registries.conf instead of /etc/containers/registries.conf (and then
   * none of the host's drop-ins), and CRI-O has no option naming that file.
   */
  home: string;
  /** containers/image's registries.conf, at its per-user place below `home`. */
  registriesConf: string;
  /** The per-user registries.d (signature storage), present and empty so the host's is not read. */
  registriesD: string;
  /** The signature policy skopeo pushes with (accepts our own unsigned images). */
  policyPath: string;
}

export function registryPaths(stateDir: string): RegistryPaths {
  const dir = join(stateDir, 'registry');
  return {
    dir,
    configPath: join(dir, 'config.yml'),
    logPath: join(dir, 'registry.log'),
    storageDir: join(dir, 'storage'),
    hostsDir: join(dir, 'certs.d'),
    home: join(dir, 'home'),
    registriesConf: join(dir, 'home', '.config', 'containers', 'registries.conf'),
    registriesD: join(dir, 'home', '.config', 'containers', 'registries.d'),
    policyPath: join(dir, 'policy.json'),
  };
}

/** The registry's address as clients name it in image references: always loopback. */
export function registryAddress(port: number): string {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`registry port ${port}`);
  return `127.0.0.1:${port}`;
}

/**
 * The registry's config.yml, written as JSON (YAML's subset, so no quoting rules to get wrong):
 * filesystem storage below the stack, deletes allowed (a cold pull needs the registry warm, not
 * the runtime), no upload purging, no access log (one line per blob request would dwarf the log),
 * bound to 127.0.0.1 only.
 */
export function renderRegistryConfig(paths: Pick<RegistryPaths, 'storageDir'>, port: number): string {
  return `${JSON.stringify(
    {
      version: 0.1,
      log: { level: 'info', formatter: 'text', accesslog: { disabled: true } },
      storage: {
        filesystem: { rootdirectory: paths.storageDir },
        delete: { enabled: true },
        maintenance: { uploadpurging: { enabled: false } },
      },
      http: { addr: registryAddress(port), net: 'tcp' },
    },
    null,
    2,
  )}\n`;
}

/** containerd's hosts.toml for the registry: plain HTTP, pull and resolve only. */
export function renderContainerdHosts(address: string): { dir: string; content: string } {
  const url = `http://${address}`;
  return {
    // containerd looks the host up as "<host>:<port>" below config_path.
    dir: address,
    content: [
      "# Written by runtime-bench `stack up`: the stack's own registry, plain HTTP on loopback.",
      `server = ${JSON.stringify(url)}`,
      '',
      `[host.${JSON.stringify(url)}]`,
      '  capabilities = ["pull", "resolve"]',
      '',
    ].join('\n'),
  };
}

/**
 * containers/image's registries.conf: no search registries (a short name never reaches any
 * registry) and, when the stack has a registry, that one marked insecure (plain HTTP).
 */
export function renderRegistriesConf(address: string | null): string {
  const lines = [
    "# Written by runtime-bench `stack up`: only the stack's own registry, never the host's list.",
    'unqualified-search-registries = []',
    '',
  ];
  if (address) lines.push('[[registry]]', `location = ${JSON.stringify(address)}`, 'insecure = true', '');
  return lines.join('\n');
}

/** The version in `docker-registry --version` output ("… github.com/docker/distribution 2.8.2+ds1"). */
export function parseRegistryVersion(output: string): string | null {
  return /\bv?(\d+\.\d+\.\d+)/.exec(output)?.[1] ?? null;
}

/** What stack.json records of the registry (optional: stacks without docker-registry have none). */
export const RegistryStateSchema = z.strictObject({
  /** Its PID while it runs; null once `stack down` stopped it. */
  pid: z.int().nullable(),
  /** host:port, always 127.0.0.1. */
  address: z.string(),
  binary: z.string(),
  version: z.string(),
  configPath: z.string(),
  logPath: z.string(),
  storageDir: z.string(),
});
export type RegistryState = z.output<typeof RegistryStateSchema>;
