// The environment every process we start gets: the allow-list and nothing else, whatever secrets
// our own environment holds (a CI token, the publish token, the runner's own tokens).
import { describe, expect, test } from 'vitest';
import { CHILD_ENV_ALLOWED, DEFAULT_PATH, childEnv } from '../../../src/util/child-env.ts';
import { planStack } from '../../../src/stack/plan.ts';
import { driverFor } from '../../../src/stack/drivers.ts';
import type { StackPlanInput } from '../../../src/stack/plan.ts';
import { planInput } from '../../support/stack-plan.ts';

const SENTINEL = 'sentinel-secret-4f1c9a';
const ours = {
  PATH: '/usr/bin:/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
  INPUT_TOKEN: SENTINEL,
  GITHUB_TOKEN: SENTINEL,
  ACTIONS_RUNTIME_TOKEN: SENTINEL,
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: SENTINEL,
  RB_PUBLISH_TOKEN: SENTINEL,
  INPUT_KUBECONFIG: SENTINEL,
  NODE_OPTIONS: '--require /tmp/x.js',
  LD_PRELOAD: '/tmp/evil.so',
};

describe('childEnv', () => {
  test('keeps exactly the allow-listed variables that are set', () => {
    expect(childEnv(ours)).toEqual({ PATH: '/usr/bin:/bin', HOME: '/root', LANG: 'C.UTF-8' });
    expect(JSON.stringify(childEnv(ours))).not.toContain(SENTINEL);
  });

  test('PATH is never missing, and extra variables are added (and win)', () => {
    expect(childEnv({})).toEqual({ PATH: DEFAULT_PATH });
    expect(childEnv({ PATH: '' }).PATH).toBe(DEFAULT_PATH);
    expect(childEnv(ours, { KUBECONFIG: '/k', PATH: '/opt/x' })).toMatchObject({
      KUBECONFIG: '/k',
      PATH: '/opt/x',
    });
  });

  test('the allow-list names no credential-looking variable', () => {
    for (const name of CHILD_ENV_ALLOWED) expect(name).not.toMatch(/TOKEN|SECRET|KEY|PASS|AUTH|CRED/i);
  });
});

describe("a stack's daemon starts from the allow-list (every shim and runtime inherits it)", () => {
  const input = (cri: 'containerd' | 'cri-o'): StackPlanInput =>
    planInput({
      daemon:
        cri === 'cri-o'
          ? {
              path: '/opt/crio/bin/crio',
              version: '1.36.3',
              tools: { pinns: '/opt/crio/bin/pinns', conmon: '/usr/bin/conmon', skopeo: '/usr/bin/skopeo' },
            }
          : planInput().daemon,
      env: childEnv(ours),
    });

  test.each(['containerd', 'cri-o'] as const)('%s', (cri) => {
    const env = planStack(driverFor(cri), input(cri)).command.env;
    expect(JSON.stringify(env)).not.toContain(SENTINEL);
    const own =
      cri === 'cri-o'
        ? ['CONTAINER_NAMESPACED_AUTH_DIR', 'CONTAINERS_REGISTRIES_CONF', 'CONTAINERS_STORAGE_CONF']
        : [];
    for (const name of Object.keys(env)) expect([...CHILD_ENV_ALLOWED, ...own]).toContain(name);
    // CRI-O's HOME is the stack's own (its per-user registries.conf names the stack's registry);
    // containerd keeps the allow-listed one.
    const plan = planStack(driverFor(cri), input(cri));
    if (cri === 'cri-o') expect(env.HOME).toBe(`${plan.state.stateDir}/registry/home`);
    else expect(env.HOME).toBe('/root');
  });
});

describe("the installer's commands (apt-get, dpkg, our own CLI for uninstall)", () => {
  test('get the allow-list and the proxy settings, never a credential', async () => {
    const { installerEnv } = await import('../../../src/install/env.ts');
    const env = installerEnv({
      PATH: '/usr/bin',
      https_proxy: 'http://127.0.0.1:3128',
      GITHUB_TOKEN: 'sentinel-value',
      INPUT_TOKEN: 'sentinel-value',
    });
    expect(env).toEqual({ PATH: '/usr/bin', https_proxy: 'http://127.0.0.1:3128' });
  });
});
