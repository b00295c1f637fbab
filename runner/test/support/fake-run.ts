// The plain pieces of a result document that the pipeline and journal tests build their fake
// target kinds from: a host, a one-metric benchmark, a CRI target.
import type { HostFingerprint } from '@runtime-bench/schemas';

export const fakeHost = (hostname: string): HostFingerprint => ({
  hostname,
  kernel: '6.1.0',
  os: 'Debian GNU/Linux 12 (bookworm)',
  arch: 'x86_64',
  cpuModel: 'Test CPU',
  cpus: 2,
  memoryBytes: 4 * 2 ** 30,
  virtualization: null,
  cgroup: { mode: 'v2', v2Controllers: ['cpu', 'memory'] },
  capabilities: { effective: '1ffffffffff', sysAdmin: true, sysResource: true },
  hostFixes: [],
});

export const FAKE_DEFINITION = {
  name: 'startup.fake',
  description: 'fake',
  origin: [],
  metrics: [{ name: 'x', unit: 'ms' as const, direction: 'lower' as const, description: 'x' }],
};

export const fakeTarget = (id: string, handler = 'runc') => ({
  id,
  cri: { name: 'containerd', version: '2.1.4', apiVersion: 'v1', endpoint: 'unix:///fake.sock' },
  handler,
  oci: { name: 'runc', version: '1.3.0', path: null },
  transport: 'grpc' as const,
});
