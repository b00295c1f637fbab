// The effects the installer needs, passed in (house style: no module mocking). `realInstallEnv`
// is the production wiring; tests use it too, with their own prefix and a local HTTP server.
import { childEnv } from '../util/child-env.ts';
import { exec, type ExecOptions, type ExecResult } from '../util/exec.ts';

/** Runs a command to completion; throws CommandError unless `allowFailure`. */
export type CommandRunner = (
  command: string,
  args: readonly string[],
  options?: ExecOptions,
) => Promise<ExecResult>;

export interface InstallEnv {
  run: CommandRunner;
  /** `init` carries request headers (the release API's); downloads pass none. */
  fetch: (url: string, init?: { headers?: Record<string, string> }) => Promise<Response>;
  log: (line: string) => void;
  /** glibc of this host (`2.36`), null on a non-glibc system. */
  hostGlibc: string | null;
  /** Node's name of the CPU architecture (`x64`, `arm64`). */
  arch: string;
  /** How to run our own CLI (for `stack down` during uninstall). */
  cli: readonly string[];
}

/** The glibc version Node itself was loaded with. */
export function hostGlibcVersion(): string | null {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)
    ?.header;
  return header?.glibcVersionRuntime ?? null;
}

export function realInstallEnv(log: (line: string) => void = (l) => console.error(l)): InstallEnv {
  return {
    // Package tools (apt-get, dpkg-deb) honour the host's proxy settings: the allow-listed
    // environment plus those, never our credentials, unless a call names its own.
    run: (command, args, options = {}) => exec(command, args, { env: installerEnv(process.env), ...options }),
    fetch: (url, init = {}) => fetch(url, { redirect: 'follow', ...init }),
    log,
    hostGlibc: hostGlibcVersion(),
    arch: process.arch,
    cli: [process.execPath, new URL('../../bin/runtime-bench.js', import.meta.url).pathname],
  };
}

/** The proxy settings package tools read, passed on beside the allow-list (childEnv). */
const PROXY_VARIABLES = ['http_proxy', 'https_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'];

/** The installer's commands' environment: the allow-listed one plus the host's proxy settings. Pure. */
export function installerEnv(source: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const proxies = Object.fromEntries(
    PROXY_VARIABLES.flatMap((name) => (source[name] ? [[name, source[name]]] : [])),
  );
  return childEnv(source, proxies);
}
