// A sweep: one OCI runtime at many versions, measured in one interleaved run on one stack (one
// CRI handler per version), so host drift cannot pass for a version change. Pure: which versions,
// and the run config that measures exactly their handlers.
import { ConfigSchema, criTargets, type Config } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { OCI_RUNTIMES, parseSpec, type ComponentName } from '../install/components.ts';
import type { InstallRecord } from '../install/record.ts';

export interface SweepSpec {
  component: ComponentName;
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
    return {
      component: ociRuntime(spec.name, words[0]!),
      range: { from: range[2]!, to: range[3]! },
      versions: [],
    };
  }
  const specs = words.map(parseSpec);
  const component = ociRuntime(specs[0]!.name, words[0]!);
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
  if (versions.length < 2)
    throw new RbError(
      'USAGE_SWEEP',
      'a sweep compares at least two versions',
      `e.g. ${component}@1.1.5 ${component}@1.2.0`,
    );
  return { component, range: null, versions };
}

function ociRuntime(name: ComponentName, word: string): ComponentName {
  if (!OCI_RUNTIMES.includes(name))
    throw new RbError(
      'USAGE_SWEEP',
      `"${word}": ${name} is not an OCI runtime`,
      'sweeps run one handler per version of an OCI runtime (runc, crun, runsc, youki); for a CRI runtime, run one stack per version',
    );
  return name;
}

/**
 * The run config of a sweep: the base config's benchmarks, repetitions and parameters, measuring
 * exactly the sweep's handlers (installed versions, oldest first) on one local containerd stack.
 */
export function sweepConfig(base: Config, stack: string, record: Pick<InstallRecord, 'handlers'>): Config {
  if (base.targets.some((t) => t.kind === 'kubernetes'))
    throw new RbError(
      'USAGE_SWEEP',
      'the config has a kubernetes target',
      'a sweep runs on a local stack: drop targets from the config',
    );
  const transport = criTargets(base.targets)[0]?.transport ?? 'grpc';
  return ConfigSchema.parse({
    ...base,
    targets: [{ stack, cri: 'containerd', handlers: record.handlers.map((h) => h.name), transport }],
    stack: { ...base.stack, extraHandlers: record.handlers },
  });
}
