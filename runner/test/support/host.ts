import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export function onPath(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const isRoot = process.getuid?.() === 0;

/** Why the real-stack tests cannot run here, or null when they can. */
export function realStackUnavailable(): string | null {
  if (!isRoot) return 'needs root (containerd, mounts, cgroups)';
  const missing = ['containerd', 'ctr', 'runc', 'crun', 'sysbench', 'catatonit', 'busybox'].filter(
    (c) => !onPath(c),
  );
  return missing.length
    ? `missing on PATH: ${missing.join(', ')} (bash scripts/setup.sh installs them)`
    : null;
}

/** The cgroup directories at `path` (e.g. /runtime-bench/x) that exist in any mounted cgroup hierarchy. */
export function cgroupsNamed(path: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((l) => / - cgroup2? /.test(l))
    .map((l) => `${l.split(' ')[4]}${path}`)
    .filter((dir) => existsSync(dir));
}

export function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((p) => p === dir || p.startsWith(`${dir}/`));
}

/**
 * Runtime processes (containerd, crio, shims, conmon, the stack registry) whose command line names the directory or a
 * path below it. The directory must end there: stack "crio" must not match the processes of
 * stack "crio-ctd" (/var/lib/…/crio is a prefix of /var/lib/…/crio-ctd/config.toml).
 */
export function processesUnder(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  const base = dir.replace(/\/+$/, '');
  const namesDir = (line: string) =>
    line.split(/\s+/).some((word) => {
      const path = word.replace(/^[^/]*=/, '').replace(/^["']|["']$/g, '');
      return path === base || path.startsWith(`${base}/`);
    });
  return out
    .split('\n')
    .filter(
      (l) =>
        namesDir(l) &&
        /containerd|crio|conmon|runc|crun|runsc|youki|docker-registry/.test(l) &&
        !l.includes('runtime-bench.js') &&
        !l.includes('vitest'),
    );
}

/**
 * A stack name for a test, suffixed with RB_TEST_STACK_SUFFIX when set, so that several checkouts
 * (or a developer's own stacks) can run the integration tests on one host without sharing a stack.
 */
export function testStackName(base: string): string {
  return `${base}${process.env.RB_TEST_STACK_SUFFIX ?? ''}`;
}
