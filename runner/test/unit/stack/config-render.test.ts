import { describe, expect, test } from 'vitest';
import { parse } from 'smol-toml';
import {
  renderCniConflist,
  renderContainerdConfig,
  renderRunscConfig,
  type ContainerdConfigInput,
} from '../../../src/stack/containerd-config.ts';
import { bridgeName, pickSubnet } from '../../../src/stack/network.ts';

const input = (configVersion: 2 | 3): ContainerdConfigInput => ({
  configVersion,
  root: '/s/root',
  state: '/s/state',
  socket: '/s/containerd.sock',
  optDir: '/s/opt',
  pauseImage: 'localhost/runtime-bench/pause:latest',
  cniBinDir: '/usr/lib/cni',
  cniConfDir: '/s/cni',
  restrictOomScoreAdj: true,
  defaultHandler: 'runc',
  registryConfigPath: '/s/registry/certs.d',
  handlers: [
    { name: 'runc', kind: 'runc', binary: '/usr/sbin/runc' },
    { name: 'runc-1.3.6', kind: 'runc', binary: '/opt/runc/1.3.6/runc' },
    { name: 'runsc', kind: 'runsc', binary: '/opt/gvisor/runsc', runscConfigPath: '/s/runsc-runsc.toml' },
  ],
});

/** containerd reads nested tables; flatten to dotted keys (quoting names with dots) to assert on them. */
function flatten(value: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const key = /^[A-Za-z0-9_]+$/.test(k) ? k : k.startsWith('io.containerd.cri') ? `'${k}'` : `"${k}"`;
      flatten(v, prefix ? `${prefix}.${key}` : key, out);
    }
  } else out[prefix] = value;
  return out;
}
const parseToml = (text: string): Record<string, unknown> => flatten(parse(text));

describe('containerd config', () => {
  test('version 2 (containerd 1.6/1.7) puts CRI options under io.containerd.grpc.v1.cri', () => {
    const doc = parseToml(renderContainerdConfig(input(2)));
    expect(doc['version']).toBe(2);
    expect(doc['grpc.address']).toBe('/s/containerd.sock');
    const cri = 'plugins."io.containerd.grpc.v1.cri"';
    expect(doc[`${cri}.sandbox_image`]).toBe('localhost/runtime-bench/pause:latest');
    expect(doc[`${cri}.restrict_oom_score_adj`]).toBe(true);
    expect(doc[`${cri}.containerd.runtimes."runc-1.3.6".runtime_type`]).toBe('io.containerd.runc.v2');
    expect(doc[`${cri}.containerd.runtimes."runc-1.3.6".options.BinaryName`]).toBe('/opt/runc/1.3.6/runc');
    expect(doc[`${cri}.containerd.runtimes.runsc.runtime_type`]).toBe('io.containerd.runsc.v1');
    expect(doc[`${cri}.containerd.runtimes.runsc.options.ConfigPath`]).toBe('/s/runsc-runsc.toml');
    expect(doc['plugins."io.containerd.internal.v1.opt".path']).toBe('/s/opt');
    expect(doc[`${cri}.registry.config_path`]).toBe('/s/registry/certs.d');
  });

  test('version 3 (containerd 2.x) splits images and runtime plugins and pins the sandbox image', () => {
    const doc = parseToml(renderContainerdConfig(input(3)));
    expect(doc['version']).toBe(3);
    expect(doc[`plugins.'io.containerd.cri.v1.images'.pinned_images.sandbox`]).toBe(
      'localhost/runtime-bench/pause:latest',
    );
    expect(doc[`plugins.'io.containerd.cri.v1.runtime'.restrict_oom_score_adj`]).toBe(true);
    expect(doc[`plugins.'io.containerd.cri.v1.runtime'.cni.bin_dirs`]).toEqual(['/usr/lib/cni']);
    // containerd 2.0 reads only bin_dir: given bin_dirs it looked in /opt/cni/bin.
    const v20 = parseToml(renderContainerdConfig({ ...input(3), cniBinKey: 'bin_dir' }));
    expect(v20[`plugins.'io.containerd.cri.v1.runtime'.cni.bin_dir`]).toBe('/usr/lib/cni');
    expect(v20).not.toHaveProperty(`plugins.'io.containerd.cri.v1.runtime'.cni.bin_dirs`);
    expect(doc[`plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options.BinaryName`]).toBe(
      '/usr/sbin/runc',
    );
    // 2.x defaults config_path to the host's /etc/containerd/certs.d: ours replaces it.
    expect(doc[`plugins.'io.containerd.cri.v1.images'.registry.config_path`]).toBe('/s/registry/certs.d');
  });

  test('runsc config and CNI conflist', () => {
    expect(renderRunscConfig('/opt/runsc', '/s/runsc')).toContain('platform = "systrap"');
    const cni = JSON.parse(renderCniConflist('net', 'rb-x', '10.233.5.0/24', '/s/ipam')) as {
      plugins: { type: string; ipam?: { ranges: unknown } }[];
    };
    expect(cni.plugins.map((p) => p.type)).toEqual(['bridge', 'loopback']);
    expect(cni.plugins[0]!.ipam!.ranges).toEqual([[{ subnet: '10.233.5.0/24' }]]);
  });
});

describe('stack network', () => {
  test('bridge names fit the 15-byte interface limit', () => {
    expect(bridgeName('default')).toBe('rb-default');
    expect(bridgeName('a-very-long-stack-name').length).toBeLessThanOrEqual(15);
    expect(bridgeName('a-very-long-stack-name')).not.toBe(bridgeName('a-very-long-stack-nam2'));
  });

  test('a subnet the host already routes is never picked', () => {
    const first = pickSubnet('default', '');
    expect(first).toMatch(/^10\.233\.\d+\.0\/24$/);
    const routes = `default via 172.16.0.1 dev eth0\n${first} dev rb-default proto kernel scope link src ${first.replace('0/24', '1')}\n`;
    const second = pickSubnet('default', routes);
    expect(second).not.toBe(first);
  });
});

describe('leftover cleanup', () => {
  test('mounts below a state dir, deepest first, never those of a sibling stack', async () => {
    const { mountsBelow } = await import('../../../src/stack/cleanup.ts');
    const line = (point: string): string => `36 25 0:31 / ${point} rw,relatime shared:1 - overlay overlay rw`;
    const info = [
      line('/var/lib/runtime-bench/stacks/a/state/x/rootfs'),
      line('/var/lib/runtime-bench/stacks/a/state/x/shm'),
      line('/var/lib/runtime-bench/stacks/a/state/x/rootfs/proc'),
      line('/var/lib/runtime-bench/stacks/a2/state/y/rootfs'),
      line('/var/lib/runtime-bench/stacks/with\\040space/z'),
    ].join('\n');
    expect(mountsBelow(info, '/var/lib/runtime-bench/stacks/a')).toEqual([
      '/var/lib/runtime-bench/stacks/a/state/x/rootfs/proc',
      '/var/lib/runtime-bench/stacks/a/state/x/shm',
      '/var/lib/runtime-bench/stacks/a/state/x/rootfs',
    ]);
    expect(mountsBelow(info, '/var/lib/runtime-bench/stacks/with space')).toEqual([
      '/var/lib/runtime-bench/stacks/with space/z',
    ]);
  });
});
