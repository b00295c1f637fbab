// The shape of an engine target's plan: what planEngine (plan.ts) and planNerdctl
// (nerdctl-plan.ts) both produce and engine.ts executes. Its own module so the engine planners
// share it without importing each other.
import type { EngineName } from '@runtime-bench/schemas';

/** The OCI runtimes of a run, by the name the engine knows them under. */
export interface RuntimeBinary {
  name: string;
  binary: string;
}

/** Resource limits a container may be given: at most the caller's hard limits. */
export interface Ulimits {
  nofile: number;
  nproc: number;
}

export interface EnginePlan {
  engine: EngineName;
  cli: string;
  root: string;
  /** Arguments before every CLI subcommand: the private socket or storage. */
  globalArgs: string[];
  /** The whole environment of the CLI and the daemon (nothing inherited but PATH). */
  env: Record<string, string>;
  dirs: string[];
  files: { path: string; content: string }[];
  /** `writesPidfile` false: the engine writes the daemon's pid there itself (containerd). */
  daemon: { binary: string; args: string[]; pidfile: string; log: string; writesPidfile?: false } | null;
  /** Host paths outside the root that the engine's runs create and the teardown removes. */
  leftovers: string[];
  /** `info` in JSON, and (nerdctl) `version` in JSON: what the result records about the engine. */
  infoArgs: string[];
  versionArgs: string[] | null;
  /** Where the engine keeps its network definitions (Podman, nerdctl); null for Docker's daemon. */
  networkConfigDir: string | null;
  /** The cgroup (by name, in every hierarchy) the run's containers go below; removed at the end. */
  cgroupName: string;
  runtimes: RuntimeBinary[];
  ulimits: Ulimits;
}
