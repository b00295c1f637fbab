import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostFix } from '@runtime-bench/schemas';
import { CAP_SYS_RESOURCE, hasCapability, parseCapEff, parseCgroupLayout } from '../host/parse.ts';
import { exec } from '../util/exec.ts';
import { RbError } from '../errors.ts';

export interface HostFixPlan {
  /** No CAP_SYS_RESOURCE: nothing may lower an oom_score_adj (containerd: restrict_oom_score_adj). */
  restrictOomScoreAdj: boolean;
  /** v2-only controllers to bind to a v1 hierarchy so crun accepts the hybrid layout. */
  hybridV2Controllers: string[];
  cgroupRoot: string;
}

/** Decides which host fixes apply, from the texts of /proc/self/status, mountinfo and cgroup.controllers. */
export function planHostFixes(statusText: string, mountinfo: string, v2ControllersText: string): HostFixPlan {
  const cgroup = parseCgroupLayout(mountinfo);
  const controllers = cgroup.mode === 'hybrid' ? v2ControllersText.trim().split(/\s+/).filter(Boolean) : [];
  const root =
    cgroup.v2Mount && cgroup.mode === 'hybrid' ? cgroup.v2Mount.replace(/\/[^/]+$/, '') : '/sys/fs/cgroup';
  return {
    restrictOomScoreAdj: !hasCapability(parseCapEff(statusText), CAP_SYS_RESOURCE),
    hybridV2Controllers: controllers,
    cgroupRoot: root,
  };
}

export async function readHostFixPlan(): Promise<HostFixPlan> {
  const status = await readFile('/proc/self/status', 'utf8');
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
  const layout = parseCgroupLayout(mountinfo);
  let controllers = '';
  if (layout.mode === 'hybrid' && layout.v2Mount)
    controllers = await readFile(join(layout.v2Mount, 'cgroup.controllers'), 'utf8').catch(() => '');
  return planHostFixes(status, mountinfo, controllers);
}

/**
 * The crun hybrid-cgroup fix, common to every driver: described (pure) here, applied by
 * `bindHybridControllers` only with `--fix-host` because it changes the host.
 */
export function describeCgroupFix(plan: HostFixPlan, fixHost: boolean): HostFix[] {
  if (plan.hybridV2Controllers.length === 0) return [];
  const list = plan.hybridV2Controllers.join(', ');
  return [
    {
      id: 'crun-hybrid-cgroup',
      condition: `cgroup hybrid mode with controllers only on cgroup2 (${list}): crun refuses ("cgroups in hybrid mode not supported, drop all controllers from cgroupv2")`,
      action: fixHost
        ? `bound ${list} to cgroup v1 hierarchies under ${plan.cgroupRoot}`
        : `not changed; run \`runtime-bench stack up --fix-host\` to bind ${list} to cgroup v1 hierarchies (crun fails until then)`,
      applied: fixHost,
    },
  ];
}

/** Binds each v2-only controller to a v1 hierarchy, so crun accepts the hybrid layout. */
export async function bindHybridControllers(plan: HostFixPlan): Promise<void> {
  for (const c of plan.hybridV2Controllers) {
    const dir = join(plan.cgroupRoot, c);
    await mkdir(dir, { recursive: true });
    const isMounted = async (): Promise<boolean> =>
      (await exec('mountpoint', ['-q', dir], { allowFailure: true })).exitCode === 0;
    if (await isMounted()) continue;
    const mount = await exec('mount', ['-t', 'cgroup', '-o', c, 'cgroup', dir], { allowFailure: true });
    // Another stack coming up at the same moment may have won the race: that is success too.
    if (mount.exitCode !== 0 && !(await isMounted())) {
      throw new RbError(
        'HOST_FIX_FAILED',
        `could not bind the cgroup controller ${c} to ${dir}: ${mount.stderr.trim()}`,
        'run without --fix-host (crun is then skipped) or mount it by hand',
      );
    }
  }
}
