import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostFix } from '@runtime-bench/schemas';
import { CAP_SYS_RESOURCE, hasCapability, parseCapEff, parseCgroupLayout } from '../host/parse.ts';
import { exec } from '../util/exec.ts';
import { RbError } from '../errors.ts';

export interface HostFixPlan {
  /** Put restrict_oom_score_adj into the CRI config. */
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
 * Applies the plan: the OOM-score fix lives in our private containerd config (no host change);
 * the crun hybrid-cgroup fix mounts v1 hierarchies and is applied only when `fixHost` is set.
 */
export async function applyHostFixes(plan: HostFixPlan, fixHost: boolean): Promise<HostFix[]> {
  const fixes: HostFix[] = [];
  if (plan.restrictOomScoreAdj) {
    fixes.push({
      id: 'restrict-oom-score-adj',
      condition:
        "no CAP_SYS_RESOURCE: the CRI pause container's oom_score_adj -998 would make runc fail (\"can't get final child's PID from pipe\")",
      action: 'set restrict_oom_score_adj = true in the private containerd CRI config',
      applied: true,
    });
  }
  if (plan.hybridV2Controllers.length > 0) {
    const list = plan.hybridV2Controllers.join(', ');
    if (fixHost) {
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
    fixes.push({
      id: 'crun-hybrid-cgroup',
      condition: `cgroup hybrid mode with controllers only on cgroup2 (${list}): crun refuses ("cgroups in hybrid mode not supported, drop all controllers from cgroupv2")`,
      action: fixHost
        ? `bound ${list} to cgroup v1 hierarchies under ${plan.cgroupRoot}`
        : `not changed; run \`runtime-bench stack up --fix-host\` to bind ${list} to cgroup v1 hierarchies (crun fails until then)`,
      applied: fixHost,
    });
  }
  return fixes;
}
