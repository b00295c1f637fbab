// The one environment every process we start on the host gets: CRI daemons (and so their shims,
// conmon, OCI runtimes and containers, which inherit from them), the Kubernetes components, the
// runtimes' `--version` and the tools a benchmark runs. Our own environment may hold credentials
// (a CI token, the publish token, a kubeconfig): nothing passes that this list does not name.
// A daemon that needs more gets it as an explicit `extra`, visible at its call site.

/** The variables passed on: where to find programs, the locale and time zone, a temporary directory. */
export const CHILD_ENV_ALLOWED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR'] as const;

/** Used when our own PATH is empty: the directories a root shell on Debian searches. */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export type ChildEnv = Record<string, string>;

/** The allow-listed part of `source` (PATH always set), plus `extra` (which wins). Pure. */
export function childEnv(
  source: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): ChildEnv {
  const env: ChildEnv = {};
  for (const name of CHILD_ENV_ALLOWED) {
    const value = source[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  return { ...env, ...extra };
}
