import type { Command } from 'commander';
import { RbError } from '../errors.ts';
import { clusterDown, clusterUp, defaultBinDir } from '../cluster/manager.ts';
import { deprecatedAlias } from './vocabulary.ts';
import { clusterStateDir, readClusterState } from '../cluster/state.ts';

interface ClusterOpts {
  cluster: string;
  stack?: string;
  binDir?: string;
}

const log = (line: string): void => console.error(`cluster: ${line}`);

function checkName(name: string, flag: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,30}$/.test(name))
    throw new RbError(
      'USAGE_CLUSTER_NAME',
      `${flag} "${name}" is not a valid name`,
      'use lower-case letters, digits and "-", at most 31 characters',
    );
  return name;
}

/** `runtime-bench cluster up|down|status`: a throw-away single-node Kubernetes on a local stack. */
export function registerCluster(program: Command): void {
  const cluster = program.command('cluster');
  cluster
    .command('up')
    .description('start the cluster on a running stack (containerd or CRI-O); prints the kubeconfig path')
    .option('--cluster <name>', 'cluster name', 'default')
    .option('--stack <name>', 'the runtime-bench stack whose CRI the kubelet uses (default: --cluster)')
    .option('--bin-dir <dir>', 'where scripts/build-kubernetes.sh put the binaries', defaultBinDir())
    .action(async (opts: ClusterOpts) => {
      const name = checkName(opts.cluster, '--cluster');
      const stack = checkName(opts.stack ?? name, '--stack');
      const state = await clusterUp({ name, stack, binDir: opts.binDir, log });
      console.log(state.kubeconfig);
    });
  cluster
    .command('down')
    .description('stop the cluster and remove everything it left (pods, mounts, cgroups, sysctls restored)')
    .option('--cluster <name>', 'cluster name', 'default')
    .action(async (opts: ClusterOpts) => {
      const problems = await clusterDown({ name: checkName(opts.cluster, '--cluster'), log });
      if (problems.length > 0)
        throw new RbError(
          'CLUSTER_DOWN',
          `cluster down left ${problems.length} thing(s): ${problems.join('; ')}`,
        );
    });
  cluster
    .command('status')
    .description('print the cluster state (JSON), or nothing when it is down')
    .option('--cluster <name>', 'cluster name', 'default')
    .action(async (opts: ClusterOpts) => {
      const state = await readClusterState(clusterStateDir(checkName(opts.cluster, '--cluster')));
      if (state) console.log(JSON.stringify(state, null, 2));
    });
  for (const sub of cluster.commands) deprecatedAlias(sub, '--name <name>', '--cluster');
}
