// A sweep: one runtime at many versions, measured in one interleaved run so host drift cannot pass
// for a version change. An OCI runtime gets one CRI handler per version on one stack; a CRI runtime
// one stack per version, side by side, each with the same handler. Pure: which versions, and the
// run config that measures exactly those handlers or stacks.
import { ConfigSchema, criTargets, type Config } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { COMPONENTS, OCI_RUNTIMES, parseSpec, type ComponentName } from '../install/components.ts';
import type { InstallRecord } from '../install/record.ts';

export interface SweepSpec {
  component: ComponentName;
  /** oci: one handler per version on one stack; cri: one stack per version. */
  kind: 'oci' | 'cri';
  /** `runc@1.1.5..1.4.3`: both ends, resolved against what the source lists. */
  range: { from: string; to: string } | null;
  /** An explicit list (`runc@1.1.5 runc@1.2.0`), in the order given. */
  versions: string[];
}

/** Parses `runc@1.1.5..1.4.3`, or a list of `runc@<version>` of one OCI runtime. */
export function parseSweepSpecs(args: readonly string[]): SweepSpec {
  const words = args.flatMap((a) => a.split(/[\s,]+/)).filter((w) => w !== '');
  if (words.length === 0)
    throw new RbError('USAGE_SWEEP', 'nothing to sweep', 'e.g. runtime-bench sweep runc@1.1.5..1.4.3');
  const range = /^([^@]+)@([^.][^@]*?)\.\.([^@]+)$/.exec(words[0]!);
  if (range) {
    if (words.length > 1)
      throw new RbError(
        'USAGE_SWEEP',
        `"${words[0]}" is a range: give it alone`,
        'or list versions: runc@1.1.5 runc@1.2.0',
      );
    const spec = parseSpec(`${range[1]}@${range[2]}`);
    parseSpec(`${range[1]}@${range[3]}`);
    const component = sweepable(spec.name, words[0]!);
    return { component, kind: kindOf(component), range: { from: range[2]!, to: range[3]! }, versions: [] };
  }
  const specs = words.map(parseSpec);
  const component = sweepable(specs[0]!.name, words[0]!);
  const versions: string[] = [];
  for (const [i, s] of specs.entries()) {
    if (s.name !== component)
      throw new RbError(
        'USAGE_SWEEP',
        `"${words[i]}": a sweep is over one runtime (${component})`,
        'run one sweep per runtime',
      );
    if (s.version === null || s.version === 'latest')
      throw new RbError('USAGE_SWEEP', `"${words[i]}": name a version`, `e.g. ${component}@1.2.0`);
    if (versions.includes(s.version)) throw new RbError('USAGE_SWEEP', `"${words[i]}" is listed twice`);
    versions.push(s.version);
  }
  if (versions.length < 2) {
    // `runc@1.1.5-1.4.3` (a valid pre-release to semver) meant a range: say how one is written.
    const range = /^v?(\d+\.\d+\.\d+)-v?(\d+\.\d+\.\d+)$/.exec(versions[0] ?? '');
    throw new RbError(
      'USAGE_SWEEP',
      'a sweep compares at least two versions',
      range
        ? `a range is written with "..": ${component}@${range[1]}..${range[2]}`
        : `e.g. ${component}@1.1.5 ${component}@1.2.0, or a range: ${component}@1.1.5..1.4.3`,
    );
  }
  return { component, kind: kindOf(component), range: null, versions };
}

const kindOf = (name: ComponentName): 'oci' | 'cri' => (COMPONENTS[name].role === 'cri' ? 'cri' : 'oci');

function sweepable(name: ComponentName, word: string): ComponentName {
  if (name === 'cri-o')
    throw new RbError(
      'USAGE_SWEEP',
      `"${word}": CRI-O versions cannot be installed here one by one yet`,
      'compare CRI-O builds in one config: one stack per build (docs/stack.md)',
    );
  if (!OCI_RUNTIMES.includes(name) && name !== 'containerd')
    throw new RbError(
      'USAGE_SWEEP',
      `"${word}": ${name} is not a runtime`,
      'sweep an OCI runtime (runc, crun, runsc, youki: one handler per version) or containerd (one stack per version)',
    );
  return name;
}

function refuseKubernetes(base: Config): void {
  if (base.targets.some((t) => t.kind === 'kubernetes'))
    throw new RbError(
      'USAGE_SWEEP',
      'the config has a kubernetes target',
      'a sweep runs on local stacks: drop targets from the config',
    );
}

/** One stack of a CRI sweep: its name, and the daemon of that version. */
export interface SweepStack {
  name: string;
  version: string;
  binary: string;
}

/** The stack of each version of a CRI sweep (`<prefix>-2-0-14`), oldest version first. */
export function sweepStacks(
  prefix: string,
  daemons: readonly { version: string; binary: string }[],
): SweepStack[] {
  const stacks = daemons.map((d) => ({
    ...d,
    name: `${prefix}-${d.version.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`,
  }));
  const long = stacks.find((s) => !/^[a-z0-9][a-z0-9-]{0,30}$/.test(s.name));
  if (long)
    throw new RbError(
      'USAGE_SWEEP',
      `stack name "${long.name}" is longer than 31 characters`,
      'give a shorter --stack',
    );
  return stacks;
}

/**
 * The run config of a CRI sweep: one target per stack (`containerd-2.0.14`), each measuring the
 * same handler, in version order, with the base config's benchmarks, repetitions and parameters.
 */
export function criSweepConfig(base: Config, stacks: readonly SweepStack[], handler: string): Config {
  refuseKubernetes(base);
  const transport = criTargets(base.targets)[0]?.transport ?? 'grpc';
  return ConfigSchema.parse({
    ...base,
    targets: stacks.map((s) => ({
      name: `containerd-${s.version}`,
      stack: s.name,
      cri: 'containerd',
      handlers: [handler],
      transport,
    })),
  });
}

/**
 * The run config of a sweep: the base config's benchmarks, repetitions and parameters, measuring
 * exactly the sweep's handlers (installed versions, oldest first) on one local containerd stack.
 */
export function sweepConfig(base: Config, stack: string, record: Pick<InstallRecord, 'handlers'>): Config {
  refuseKubernetes(base);
  const transport = criTargets(base.targets)[0]?.transport ?? 'grpc';
  return ConfigSchema.parse({
    ...base,
    targets: [{ stack, cri: 'containerd', handlers: record.handlers.map((h) => h.name), transport }],
    stack: { ...base.stack, extraHandlers: record.handlers },
  });
}
