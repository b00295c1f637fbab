// Which targets of one run measured two versions of the same thing side by side: the pairs a
// version change is decided on (docs/version-change.md). Found from what was measured, never from
// names: a nightly that added the previous runc beside the new one, a sweep of eleven runc
// releases on one stack, a containerd sweep of several stacks and an A/A night (one version built
// twice) all yield their pairs by the same rule. Pure.
import type { RunResult, Target } from '@runtime-bench/schemas';
import { compareSemver, isSemver } from '../install/semver.ts';

/** The component whose version differs within a pair; 'none' for an A/A pair (the same versions). */
export type PairComponent = 'oci' | 'cri' | 'engine' | 'none';

export interface VersionPair {
  /** The older version (or, for A/A, the target listed first), the "before" of the change. */
  a: Target;
  /** The newer version: the "after". */
  b: Target;
  component: PairComponent;
  /** The component's name (runc, containerd, docker …) and the versions of a and b. */
  name: string;
  from: string;
  to: string;
  /**
   * How the order was decided: by semantic version, or, when a version is not one (a commit), by
   * the run's target order, which the caller states (the previous version is added after the new).
   */
  orderedBy: 'semver' | 'run order' | 'same version';
}

/** The versions of a target that can differ within a pair, in the order a pair is looked for. */
function versionsOf(t: Target): Record<Exclude<PairComponent, 'none'>, string> {
  return { oci: t.oci.version, cri: t.cri.version, engine: t.engine?.version ?? '' };
}

const nameOf = (t: Target, c: PairComponent): string =>
  c === 'oci' ? t.oci.name : c === 'cri' ? t.cri.name : c === 'engine' ? (t.engine?.name ?? '') : t.oci.name;

/**
 * What must be the same for two targets to be a pair: the CRI runtime, the OCI runtime, how the
 * numbers were taken, the engine, the pod's RuntimeClass. Versions are left out: they are what
 * the pair compares.
 */
function kindKey(t: Target): string {
  return JSON.stringify([
    t.cri.name,
    t.oci.name,
    t.transport,
    t.engine?.name ?? null,
    t.engine?.storageDriver ?? null,
    t.engine?.cgroupManager ?? null,
    t.engine?.networkBackend ?? null,
    t.kubernetes?.runtimeClass ?? null,
  ]);
}

/**
 * The version pairs of a run. Targets of one kind (kindKey) are grouped, for each component, by
 * the versions of the other components; within a group the distinct versions of that component are
 * put in order and each adjacent two make a pair (a sweep of n versions: n − 1 pairs, each one
 * version step). A target can be in pairs of several components: containerd 2.1.9 with runc 1.1.5
 * pairs with runc 1.3.6 on the same containerd and with containerd 1.6.20 under the same runc.
 * Targets of identical versions make A/A pairs, the first listed with each later one.
 */
export function versionPairs(run: Pick<RunResult, 'targets'>): VersionPair[] {
  const pairs: VersionPair[] = [];
  const byKind = new Map<string, Target[]>();
  for (const t of run.targets) byKind.set(kindKey(t), [...(byKind.get(kindKey(t)) ?? []), t]);
  for (const targets of byKind.values()) {
    for (const component of ['oci', 'cri', 'engine'] as const) {
      const groups = new Map<string, Target[]>();
      for (const t of targets) {
        const { [component]: _own, ...others } = versionsOf(t);
        const key = JSON.stringify(others);
        groups.set(key, [...(groups.get(key) ?? []), t]);
      }
      for (const group of groups.values()) {
        const versions = [...new Set(group.map((t) => versionsOf(t)[component]))];
        if (versions.length < 2) continue;
        const semver = versions.every(isSemver);
        if (semver) versions.sort(compareSemver);
        // Not semantic versions (commits): the run's order, oldest first as the config lists them.
        const first = (v: string): Target => group.find((t) => versionsOf(t)[component] === v)!;
        for (let i = 1; i < versions.length; i++) {
          const a = first(versions[i - 1]!);
          const b = first(versions[i]!);
          pairs.push({
            a,
            b,
            component,
            name: nameOf(a, component),
            from: versions[i - 1]!,
            to: versions[i]!,
            orderedBy: semver ? 'semver' : 'run order',
          });
        }
      }
    }
    // A/A: targets of one kind and identical versions.
    const same = new Map<string, Target[]>();
    for (const t of targets) {
      const key = JSON.stringify(versionsOf(t));
      same.set(key, [...(same.get(key) ?? []), t]);
    }
    for (const group of same.values())
      for (const b of group.slice(1))
        pairs.push({
          a: group[0]!,
          b,
          component: 'none',
          name: group[0]!.oci.name,
          from: group[0]!.oci.version,
          to: b.oci.version,
          orderedBy: 'same version',
        });
  }
  return pairs;
}

/** "runc 1.1.14 → 1.2.0" or "runc 1.4.3 twice (A/A)". */
export function pairLabel(pair: Pick<VersionPair, 'component' | 'name' | 'from' | 'to'>): string {
  return pair.component === 'none'
    ? `${pair.name} ${pair.from} twice (A/A)`
    : `${pair.name} ${pair.from} → ${pair.to}`;
}
