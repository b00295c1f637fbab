// The install plan: which component, at which version, from which source, into which directory,
// and which CRI handler it becomes. Pure, so `install --dry-run` prints exactly what install does.
import { join, relative } from 'node:path';
import { RbError } from '../errors.ts';
import { BUILD_SOURCES, buildRefusal, type BuildSource } from './build-recipe.ts';
import {
  COMPONENTS,
  handlerName,
  type ComponentInfo,
  type ComponentSpec,
  type Source,
} from './components.ts';
import { describeVerification, type AssetVerification } from './verification.ts';

/** Where everything goes unless told otherwise: one directory per component and version. */
export const DEFAULT_PREFIX = '/opt/runtime-bench';

/** Debian suites searched by the distro source, oldest first (the host's own suite first). */
export const DEFAULT_SUITES = ['bookworm', 'trixie', 'sid'];

export interface InstallRequest {
  specs: ComponentSpec[];
  source: Source;
  prefix: string;
  suites: string[];
  /** Path source: directories searched before PATH (e.g. the shared CRI-O and crictl builds). */
  pathDirs?: string[];
  /** Git source: the checkout whose refs are built. */
  gitDir?: string;
  /** Build sources: this Go toolchain instead of the one the release used. */
  toolchain?: string;
}

export interface PlanStep {
  spec: ComponentSpec;
  component: ComponentInfo;
  source: Source;
  /** Known before install unless the spec says `latest` (release/distro) or nothing (path). */
  version: string | null;
  /** `<prefix>/<component>/<version>`; null for the path source (it installs nothing). */
  dir: string | null;
  /** The CRI handler an OCI runtime becomes; null for other roles. */
  handler: string | null;
}

export interface InstallPlan {
  prefix: string;
  source: Source;
  suites: string[];
  /** Path source: searched before PATH, in this order. */
  pathDirs: string[];
  gitDir: string | null;
  toolchain: string | null;
  steps: PlanStep[];
}

/** True for the sources that build from source (their directory is known only after the build). */
export function isBuildSource(source: Source): source is BuildSource {
  return (BUILD_SOURCES as readonly string[]).includes(source);
}

const isConcrete = (v: string | null): v is string => v !== null && v !== 'latest';

/** Checks the request and lays out the steps; throws RbError naming the first spec that cannot work. */
export function buildPlan(request: InstallRequest): InstallPlan {
  if (!request.prefix.startsWith('/')) {
    throw new RbError(
      'USAGE_PREFIX',
      `prefix "${request.prefix}" is not an absolute path`,
      'e.g. /opt/runtime-bench',
    );
  }
  if (request.specs.length === 0) {
    throw new RbError(
      'USAGE_COMPONENT',
      'nothing to install',
      'name components, e.g. containerd@1.7.24 runc@1.3.6',
    );
  }
  const seen = new Set<string>();
  const steps = request.specs.map((spec): PlanStep => {
    const component = COMPONENTS[spec.name];
    // A component named by its binary (containerd@/usr/bin/containerd) is that binary whatever
    // the others come from: runc built from source on the runner's own containerd.
    if (spec.path !== null && request.source !== 'path') {
      const key = `${spec.name}@${spec.path}`;
      if (seen.has(key)) throw new RbError('USAGE_COMPONENT', `"${key}" is requested twice`);
      seen.add(key);
      return { spec, component, source: 'path', version: null, dir: null, handler: null };
    }
    const why = component.unsupported?.[request.source];
    const label = `${spec.name}@${spec.path ?? spec.version ?? ''}`;
    if (why)
      throw new RbError(
        'INSTALL_UNSUPPORTED',
        `${label}: source "${request.source}" cannot provide ${spec.name}`,
        why,
      );
    const refusal = isBuildSource(request.source) ? buildRefusal(spec.name, request.source) : null;
    if (refusal)
      throw new RbError(
        'INSTALL_UNSUPPORTED',
        `${label}: no build recipe for ${spec.name} from source "${request.source}"`,
        refusal,
      );
    if (request.toolchain !== undefined && spec.name === 'crun')
      throw new RbError(
        'USAGE_TOOLCHAIN',
        `${label}: crun is built with this host's gcc`,
        'leave --toolchain out for crun (it names a Go toolchain)',
      );
    if (request.source === 'git' && spec.version === 'latest')
      throw new RbError(
        'USAGE_COMPONENT',
        `"${label}": the git source builds a ref`,
        `e.g. ${spec.name}@main`,
      );
    if (request.source !== 'path' && spec.version === null) {
      throw new RbError(
        'USAGE_COMPONENT',
        `"${spec.name}": source "${request.source}" needs a version`,
        `write ${spec.name}@<version> or ${spec.name}@latest`,
      );
    }
    const key = `${spec.name}@${spec.version ?? spec.path ?? '*'}`;
    if (seen.has(key)) throw new RbError('USAGE_COMPONENT', `"${key}" is requested twice`);
    seen.add(key);
    const version = spec.version;
    const dir =
      request.source !== 'path' && !isBuildSource(request.source) && isConcrete(version)
        ? componentDir(request.prefix, spec.name, version)
        : null;
    const handler = component.role === 'oci' && isConcrete(version) ? handlerName(spec.name, version) : null;
    return { spec, component, source: request.source, version, dir, handler };
  });
  const pathDirs = request.pathDirs ?? [];
  const relativeDir = pathDirs.find((d) => !d.startsWith('/'));
  if (relativeDir !== undefined)
    throw new RbError('USAGE_PATH_DIR', `--path-dir "${relativeDir}" is not an absolute path`);
  if (pathDirs.length > 0 && request.source !== 'path')
    throw new RbError('USAGE_PATH_DIR', '--path-dir only makes sense with --source path');
  const gitDir = request.gitDir ?? null;
  if (request.source === 'git' && (gitDir === null || !gitDir.startsWith('/')))
    throw new RbError(
      'USAGE_GIT_DIR',
      '--source git needs --git-dir <absolute path of a checkout>',
      'e.g. --git-dir /src/runc',
    );
  if (gitDir !== null && request.source !== 'git')
    throw new RbError('USAGE_GIT_DIR', '--git-dir only makes sense with --source git');
  const toolchain = request.toolchain ?? null;
  if (toolchain !== null && !isBuildSource(request.source))
    throw new RbError('USAGE_TOOLCHAIN', '--toolchain only makes sense with a build source (go, git)');
  if (toolchain !== null && !/^(go\d+\.\d+(\.\d+)?|local)$/.test(toolchain))
    throw new RbError(
      'USAGE_TOOLCHAIN',
      `--toolchain "${toolchain}" is not a Go toolchain`,
      'e.g. go1.22.12, or local',
    );
  return {
    prefix: request.prefix,
    source: request.source,
    suites: request.suites,
    pathDirs,
    gitDir,
    toolchain,
    steps,
  };
}

/**
 * The executables an installed component offers, as `<dir>/bin/<name>`: the ones its source
 * provides (a Debian package lacks some release-only companions).
 */
export function installedBinaries(
  component: ComponentInfo,
  source: 'release' | 'distro',
  dir: string,
): Record<string, string> {
  return Object.fromEntries(
    component.binaries
      .filter((b) => (source === 'distro' ? b.distro : b.release))
      .map((b) => [b.name, join(dir, 'bin', b.name)]),
  );
}

/**
 * The relative links that make `bin/<name>` of a staged component point at each executable
 * where its source unpacked it (`root/usr/sbin/runc`); none for one already at `bin/<name>`
 * (a patched copy). Paths are relative to the component directory, so it can be renamed.
 */
export function binLinks(staged: Record<string, string>): { link: string; target: string }[] {
  return Object.entries(staged)
    .filter(([name, rel]) => rel !== join('bin', name))
    .map(([name, rel]) => ({ link: join('bin', name), target: relative('bin', rel) }));
}

/** `<prefix>/<component>/<version>`, refusing versions that would escape the prefix. */
export function componentDir(prefix: string, name: string, version: string): string {
  if (version.includes('/') || version.startsWith('.')) {
    throw new RbError('USAGE_COMPONENT', `version "${version}" of ${name} is not a plain version`);
  }
  return join(prefix, name, version);
}

/** A release step checked for `install --dry-run`: its version (`latest` resolved when it had to be) and how each asset is verified. */
export interface StepVerification {
  version: string;
  assets: AssetVerification[];
}

/**
 * The human-readable plan printed by `install --dry-run`; `verification` holds, per step, what
 * the release check found (null for the other sources). It says how each download is verified,
 * never more than that.
 */
export function formatPlan(
  plan: InstallPlan,
  verification: readonly (StepVerification | null)[] = [],
): string {
  const lines = [`install plan (source ${plan.source}, prefix ${plan.prefix}):`];
  for (const [i, s] of plan.steps.entries()) {
    const checked = verification[i] ?? null;
    const resolved =
      s.version === 'latest' && checked && checked.version !== 'latest' ? checked.version : null;
    const what = `${s.spec.name}@${s.spec.path ?? s.version ?? '(installed)'}`;
    let where: string;
    if (s.source === 'path')
      where = `use ${s.spec.path ?? `${s.component.binaries[0]!.name} found in ${[...plan.pathDirs, 'PATH'].join(', ')}`}, version read from it`;
    else if (isBuildSource(s.source))
      where = `build ${s.source === 'git' ? `${plan.gitDir}@${s.version}` : `${s.version}`} as its release is built (toolchain ${s.spec.name === 'crun' ? "this host's gcc" : (plan.toolchain ?? "the release's")}) → ${join(plan.prefix, s.spec.name)}/<version>+<toolchain>${s.source === 'debian-source' ? ` (upstream's tarball from the Debian source package, suites ${plan.suites.join(', ')}; checked against the sha256 of the signed Sources index)` : ''}`;
    else if (s.dir) where = `→ ${s.dir}`;
    else if (resolved)
      where = `→ ${componentDir(plan.prefix, s.spec.name, resolved)} (latest now ${resolved})`;
    else where = `→ ${join(plan.prefix, s.spec.name)}/<version resolved at install>`;
    const from =
      s.source === 'distro'
        ? ` (Debian package ${s.component.debianPackage}, suites ${plan.suites.join(', ')}; apt checks it against the suite's signed Release file)`
        : s.source === 'release'
          ? ' (upstream release)'
          : '';
    const handler = s.component.role === 'oci' ? `  handler ${s.handler ?? `${s.spec.name}-<version>`}` : '';
    lines.push(`  ${what.padEnd(24)} ${where}${from}${handler}`);
    if (s.source === 'release')
      for (const asset of checked?.assets ?? [])
        lines.push(`  ${''.padEnd(24)}   verify ${describeVerification(asset)}`);
  }
  return lines.join('\n');
}
