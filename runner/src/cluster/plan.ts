// The pure half of the local test cluster: every path, port, flag and file text of etcd,
// kube-apiserver, kube-scheduler, kube-controller-manager and the kubelet, from a few inputs.
// manager.ts starts what this describes. Invariants (why the flags look like this):
// - every listener binds 127.0.0.1; the node's address is on the stack's bridge (the kubelet
//   refuses a loopback node IP) and nothing is ever sent there: the apiserver reaches the kubelet
//   by its Hostname address "localhost", which resolves to 127.0.0.1;
// - everything the kubelet writes that has a setting lives below the cluster's state dir (root
//   dir, pod logs, volume plugins, cgroup root); what it writes to fixed host paths regardless
//   (sysctls, /var/lib/kubelet/device-plugins, /var/log/containers) is undone by `down`;
// - one self-signed CA; every component uses the admin (system:masters) client certificate:
//   a test cluster's RBAC is not what is being measured.
import { join } from 'node:path';
import { stringify } from 'yaml';

/** The sysctls the kubelet sets at start-up (setupKernelTunables); `down` restores them. */
export const KUBELET_SYSCTLS = [
  'vm.overcommit_memory',
  'vm.panic_on_oom',
  'kernel.panic',
  'kernel.panic_on_oops',
  'kernel.keys.root_maxkeys',
  'kernel.keys.root_maxbytes',
] as const;

/** Host paths the kubelet creates whatever its configuration says. */
export const KUBELET_FIXED_PATHS = ['/var/lib/kubelet', '/var/log/containers', '/var/log/pods'] as const;

/** The node's name and Hostname address: it must resolve to 127.0.0.1 for the apiserver. */
export const NODE_NAME = 'localhost';

export interface ClusterPorts {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  scheduler: number;
  controllerManager: number;
  kubelet: number;
  kubeletHealthz: number;
}

export interface ClusterPlanInput {
  name: string;
  stateDir: string;
  binDir: string;
  /** The stack's CRI socket path (no scheme). */
  criSocket: string;
  /** The node's IP: the gateway address of the stack's bridge. */
  nodeIp: string;
  ports: ClusterPorts;
}

export interface ComponentPlan {
  name: 'etcd' | 'kube-apiserver' | 'kube-scheduler' | 'kube-controller-manager' | 'kubelet';
  binary: string;
  args: string[];
  log: string;
}

export interface ClusterPlan {
  stateDir: string;
  pkiDir: string;
  kubeconfig: string;
  kubeletConfigPath: string;
  kubeletConfig: string;
  kubeconfigText: string;
  kubeletRootDir: string;
  podLogsDir: string;
  /** cgroupfs path (relative to the cgroup2 mount) under which the kubelet puts kubepods. */
  cgroupRoot: string;
  components: ComponentPlan[];
}

/** The gateway the stack's host-local IPAM uses: the first address of its subnet. */
export function gatewayOf(subnet: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(subnet);
  if (!m) throw new Error(`not an IPv4 CIDR: ${subnet}`);
  const base = m.slice(1, 5).map(Number);
  const n = ((base[0]! << 24) | (base[1]! << 16) | (base[2]! << 8) | base[3]!) >>> 0;
  const prefix = Number(m[5]);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const gw = ((n & mask) + 1) >>> 0;
  return [gw >>> 24, (gw >>> 16) & 255, (gw >>> 8) & 255, gw & 255].join('.');
}

export function kubeconfigText(server: string, pkiDir: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'rb', cluster: { server, 'certificate-authority': join(pkiDir, 'ca.crt') } }],
    users: [
      {
        name: 'admin',
        user: {
          'client-certificate': join(pkiDir, 'admin.crt'),
          'client-key': join(pkiDir, 'admin.key'),
        },
      },
    ],
    contexts: [{ name: 'rb', context: { cluster: 'rb', user: 'admin' } }],
    'current-context': 'rb',
  });
}

export function planCluster(input: ClusterPlanInput): ClusterPlan {
  const d = input.stateDir;
  const pki = join(d, 'pki');
  const logs = join(d, 'logs');
  const kubeconfig = join(d, 'admin.kubeconfig');
  const bin = (b: string): string => join(input.binDir, b);
  const p = input.ports;
  const kubeletRootDir = join(d, 'kubelet');
  const podLogsDir = join(d, 'pod-logs');
  const cgroupRoot = `/runtime-bench-cluster-${input.name}`;
  const kubeletConfigPath = join(d, 'kubelet-config.yaml');
  const kubeletConfig = stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: '127.0.0.1',
    port: p.kubelet,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: p.kubeletHealthz,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: false },
      x509: { clientCAFile: join(pki, 'ca.crt') },
    },
    authorization: { mode: 'AlwaysAllow' },
    cgroupDriver: 'cgroupfs',
    cgroupRoot,
    cgroupsPerQOS: true,
    failSwapOn: false,
    oomScoreAdj: 0,
    containerRuntimeEndpoint: `unix://${input.criSocket}`,
    podLogsDir,
    volumePluginDir: join(d, 'volume-plugins'),
    // No iptables chains on the host, no image garbage collection of the stack's local images,
    // no eviction on a busy test host.
    makeIPTablesUtilChains: false,
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: { 'memory.available': '1Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
    serializeImagePulls: false,
    registerNode: true,
    resolvConf: '/etc/resolv.conf',
    enforceNodeAllocatable: ['pods'],
  });
  const etcdUrl = `http://127.0.0.1:${p.etcdClient}`;
  const components: ComponentPlan[] = [
    {
      name: 'etcd',
      binary: bin('etcd'),
      log: join(logs, 'etcd.log'),
      args: [
        `--name=rb-${input.name}`,
        `--data-dir=${join(d, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${p.etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${p.etcdPeer}`,
        `--initial-cluster=rb-${input.name}=http://127.0.0.1:${p.etcdPeer}`,
        '--log-level=warn',
        // A test cluster: losing its last writes on a crash costs nothing, fsync costs seconds.
        '--unsafe-no-fsync',
      ],
    },
    {
      name: 'kube-apiserver',
      binary: bin('kube-apiserver'),
      log: join(logs, 'kube-apiserver.log'),
      args: [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${p.apiserver}`,
        // The default reconciler would publish 127.0.0.1 as the kubernetes service's endpoint,
        // which endpoint validation refuses; nothing in a benchmark pod talks to the apiserver.
        '--endpoint-reconciler-type=none',
        '--service-cluster-ip-range=10.96.0.0/24',
        `--cert-dir=${join(d, 'apiserver-certs')}`,
        `--tls-cert-file=${join(pki, 'apiserver.crt')}`,
        `--tls-private-key-file=${join(pki, 'apiserver.key')}`,
        `--client-ca-file=${join(pki, 'ca.crt')}`,
        `--kubelet-client-certificate=${join(pki, 'admin.crt')}`,
        `--kubelet-client-key=${join(pki, 'admin.key')}`,
        '--kubelet-preferred-address-types=Hostname',
        '--service-account-issuer=https://kubernetes.default.svc',
        `--service-account-key-file=${join(pki, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(pki, 'sa.key')}`,
        '--authorization-mode=Node,RBAC',
        '--allow-privileged=true',
        '--profiling=false',
      ],
    },
    {
      name: 'kube-scheduler',
      binary: bin('kube-scheduler'),
      log: join(logs, 'kube-scheduler.log'),
      args: [
        `--kubeconfig=${kubeconfig}`,
        `--authentication-kubeconfig=${kubeconfig}`,
        `--authorization-kubeconfig=${kubeconfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p.scheduler}`,
        '--leader-elect=false',
        '--profiling=false',
      ],
    },
    {
      name: 'kube-controller-manager',
      binary: bin('kube-controller-manager'),
      log: join(logs, 'kube-controller-manager.log'),
      args: [
        `--kubeconfig=${kubeconfig}`,
        `--authentication-kubeconfig=${kubeconfig}`,
        `--authorization-kubeconfig=${kubeconfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p.controllerManager}`,
        '--leader-elect=false',
        // Under RBAC each controller needs its own service account's token.
        '--use-service-account-credentials=true',
        `--service-account-private-key-file=${join(pki, 'sa.key')}`,
        `--root-ca-file=${join(pki, 'ca.crt')}`,
        '--profiling=false',
      ],
    },
    {
      name: 'kubelet',
      binary: bin('kubelet'),
      log: join(logs, 'kubelet.log'),
      args: [
        `--config=${kubeletConfigPath}`,
        `--kubeconfig=${kubeconfig}`,
        `--root-dir=${kubeletRootDir}`,
        `--cert-dir=${join(kubeletRootDir, 'pki')}`,
        `--hostname-override=${NODE_NAME}`,
        `--node-ip=${input.nodeIp}`,
        '--v=1',
      ],
    },
  ];
  return {
    stateDir: d,
    pkiDir: pki,
    kubeconfig,
    kubeletConfigPath,
    kubeletConfig,
    kubeconfigText: kubeconfigText(`https://127.0.0.1:${p.apiserver}`, pki),
    kubeletRootDir,
    podLogsDir,
    cgroupRoot,
    components,
  };
}
