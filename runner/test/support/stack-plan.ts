// One StackPlanInput for the unit tests of the stack's plan and lifecycle: a containerd stack "t"
// with one runc handler on a host that needs no fix; tests override what they are about.
import type { StackPlanInput } from '../../src/stack/plan.ts';

export const PLAN_STATE_DIR = '/var/lib/runtime-bench/stacks/t';

export const RUNC_HANDLER = {
  name: 'runc',
  kind: 'runc',
  binary: '/usr/sbin/runc',
  version: '1.1.5',
  versionOutput: 'runc version 1.1.5',
} as const;

export function planInput(over: Partial<StackPlanInput> = {}): StackPlanInput {
  return {
    name: 't',
    stateDir: PLAN_STATE_DIR,
    daemon: { path: '/usr/bin/containerd', version: '1.7.24', tools: { ctr: '/usr/bin/ctr' } },
    discovered: { handlers: [{ ...RUNC_HANDLER }], skipped: [] },
    hostFixPlan: { hybridV2Controllers: [], restrictOomScoreAdj: false, cgroupRoot: '/sys/fs/cgroup' },
    fixHost: false,
    routes: '',
    cniBinDir: '/usr/lib/cni',
    images: { pause: 'localhost/p:1', bench: 'localhost/b:1' },
    shimDirs: [],
    usageHierarchy: null,
    env: { PATH: '/usr/bin' },
    ...over,
  };
}
