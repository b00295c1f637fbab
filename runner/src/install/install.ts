// The executor of `runtime-bench install`: resolve → stage everything → place → verify → record.
// Nothing lands under <prefix>/<component>/<version> until every component has been downloaded
// and verified, so a bad checksum anywhere leaves the prefix as it was.
import { access, mkdir, readdir, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { RbError, errorMessage } from '../errors.ts';
import { childEnv } from '../util/child-env.ts';
import { buildComponent } from './build.ts';
import type { BuildSource } from './build-recipe.ts';
import { removeAbandonedTemps, sealEntry, tempEntryName, usableEntry } from './cache-entry.ts';
import { COMPONENTS, type ComponentName } from './components.ts';
import { PrivateApt, resolveDistroVersion, stageDistro, type DistroResolution } from './distro.ts';
import type { InstallEnv } from './env.ts';
import { locateBinaries } from './path-source.ts';
import {
  binLinks,
  buildPlan,
  componentDir,
  installedBinaries,
  isBuildSource,
  type InstallPlan,
  type InstallRequest,
  type PlanStep,
} from './plan.ts';
import {
  buildInstallRecord,
  writeInstallRecord,
  type InstallRecord,
  type InstalledComponent,
} from './record.ts';
import { resolveLatestRelease, stageRelease, type ReleaseOptions } from './release.ts';
import type { StagedComponent } from './stage.ts';
import { parseReportedVersion, sameVersion } from './versions.ts';

export interface InstallOptions extends ReleaseOptions {
  /** Where the record goes; the stack config is written beside it. */
  statePath: string;
  debianMirror?: string;
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/** Creates `dir` and any missing parents, returning the ones that were created (outermost first). */
async function mkdirTracked(dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (let d = dir; d !== dirname(d) && !(await exists(d)); d = dirname(d)) missing.unshift(d);
  await mkdir(dir, { recursive: true });
  return missing;
}

/** Runs the main binary with its version arguments; returns the parsed version and the raw line. */
export async function readVersion(
  env: InstallEnv,
  name: ComponentName,
  binary: string,
): Promise<{ version: string | null; output: string }> {
  // The binary is the runtime under test: it starts from the allow-list, like the stack's daemons.
  const r = await env.run(binary, COMPONENTS[name].versionArgs, {
    allowFailure: true,
    timeoutMs: 30_000,
    env: childEnv(process.env),
  });
  const output = `${r.stdout}${r.stderr}`.trim();
  // A binary that cannot even start (missing library, wrong loader) must not be recorded as installed.
  if (r.exitCode !== 0 && parseReportedVersion(name, output) === null) {
    throw new RbError(
      'INSTALL_BROKEN',
      `${binary} ${COMPONENTS[name].versionArgs.join(' ')} failed (exit ${r.exitCode}): ${output.split('\n').slice(-3).join(' ')}`,
    );
  }
  return { version: parseReportedVersion(name, output), output: output.split('\n')[0] ?? '' };
}

/** A release or distro step with its version known: where it goes, and how to get it. */
interface Resolved {
  step: PlanStep;
  version: string;
  dir: string;
  resolution?: DistroResolution;
}

/** Directories this install creates, remembered (outermost first) so uninstall removes only them. */
class CreatedPaths {
  readonly paths: string[] = [];
  async mkdir(dir: string): Promise<void> {
    this.paths.push(...(await mkdirTracked(dir)));
  }
  add(path: string): void {
    this.paths.push(path);
  }
  /**
   * After a failed install (no record was written, so no uninstall could ever find them): removes
   * the private apt state it made, and the directories it made when they are empty again.
   */
  async undo(): Promise<void> {
    for (const path of [...this.paths].reverse()) {
      if (path.includes('/apt/')) await rm(path, { recursive: true, force: true });
      else await rmdir(path).catch(() => {}); // not empty: someone else's files are in it
    }
  }
}

/** One private apt per Debian suite, made on first use and reused by every step. */
type AptPool = (suite: string) => Promise<PrivateApt>;

function aptPool(
  env: InstallEnv,
  prefix: string,
  mirror: string | undefined,
  created: CreatedPaths,
): AptPool {
  const apts = new Map<string, PrivateApt>();
  return async (suite) => {
    let apt = apts.get(suite);
    if (!apt) {
      apt = new PrivateApt(env, prefix, suite, mirror);
      await created.mkdir(apt.dir);
      apts.set(suite, apt);
    }
    return apt;
  };
}

/**
 * Installs what the request names; writes the record and the stack config; returns the record.
 * The decisions are pure (buildPlan, installedBinaries, binLinks, buildInstallRecord); this only
 * runs them against the machine: resolve → stage all → place → verify → record.
 */
export async function install(
  env: InstallEnv,
  request: InstallRequest,
  options: InstallOptions,
): Promise<InstallRecord> {
  const plan = buildPlan(request);
  const created = new CreatedPaths();
  let placed = new Map<string, StagedComponent>();
  try {
    const apts = aptPool(env, plan.prefix, options.debianMirror, created);
    const found: InstalledComponent[] = [];
    const pending: Resolved[] = [];
    for (const step of plan.steps) {
      if (step.source === 'path') found.push(await usePath(env, step, plan.pathDirs));
      else if (isBuildSource(step.source))
        found.push(await useBuild(env, step, plan, created, options.debianMirror));
      else pending.push(await resolve(env, plan, step, apts, options));
    }
    placed = await stageAndPlace(env, plan.prefix, pending, apts, created, options);
    const installed = await verifyInstalled(env, pending, placed);
    await created.mkdir(dirname(options.statePath));
    const { record, stackConfigText } = buildInstallRecord({
      prefix: plan.prefix,
      source: plan.source,
      statePath: options.statePath,
      createdAt: new Date().toISOString(),
      components: [...found, ...installed],
      created: created.paths,
    });
    await writeFile(record.stackConfig, stackConfigText);
    await writeInstallRecord(options.statePath, record);
    return record;
  } catch (error) {
    // Without a record no uninstall could find them: what this install placed or made goes now.
    for (const dir of placed.keys()) await rm(dir, { recursive: true, force: true });
    await created.undo();
    throw error;
  }
}

/** The path source: binaries already on the machine, their version read from them. */
async function usePath(env: InstallEnv, step: PlanStep, pathDirs: string[]): Promise<InstalledComponent> {
  const name = step.spec.name;
  const searchPath = [...pathDirs, process.env.PATH ?? ''].join(delimiter);
  const binaries = await locateBinaries(step.component, step.spec.path, searchPath);
  const main = binaries[step.component.binaries[0]!.name]!;
  const { version, output } = await readVersion(env, name, main);
  if (step.version && version && !sameVersion(step.version, version)) {
    throw new RbError(
      'INSTALL_VERSION',
      `${name}@${step.version}: ${main} is version ${version}`,
      `install ${name} ${step.version}, or ask for ${name}@${version}`,
    );
  }
  return {
    name,
    role: step.component.role,
    version: version ?? step.version ?? 'unknown',
    source: 'path',
    dir: null,
    binaries,
    reported: version,
    detail: output,
    createdByThisInstall: false,
  };
}

/**
 * The build sources: built the way the release is, or taken from the build cache. A build this
 * install made is its to remove; one from the cache is not.
 */
async function useBuild(
  env: InstallEnv,
  step: PlanStep,
  plan: InstallPlan,
  created: CreatedPaths,
  debianMirror: string | undefined,
): Promise<InstalledComponent> {
  const name = step.spec.name;
  const built = await buildComponent(env, {
    component: name,
    source: step.source as BuildSource,
    suites: plan.suites,
    ...(debianMirror ? { debianMirror } : {}),
    version: step.version!,
    prefix: plan.prefix,
    ...(plan.gitDir ? { gitDir: plan.gitDir } : {}),
    ...(plan.toolchain ? { toolchain: plan.toolchain } : {}),
  });
  if (!built.cached) created.add(built.dir);
  const { version, output } = await readVersion(env, name, built.binary);
  env.log(
    `${name}@${step.version} → ${built.version} (${built.cached ? 'cached build' : 'built'} with ${built.record.toolchain})`,
  );
  return {
    name,
    role: step.component.role,
    version: built.version,
    source: step.source,
    dir: built.dir,
    binaries: built.binaries,
    reported: version,
    detail: `${output}; built from ${built.record.origin} with ${built.record.toolchain}`,
    createdByThisInstall: !built.cached,
    build: built.record,
  };
}

/** Release/distro: the concrete version (`latest`, a Debian suite's) and its directory. */
async function resolve(
  env: InstallEnv,
  plan: InstallPlan,
  step: PlanStep,
  apts: AptPool,
  options: InstallOptions,
): Promise<Resolved> {
  let version = step.version!;
  let resolution: DistroResolution | undefined;
  if (step.source === 'distro') {
    const suites = await Promise.all(plan.suites.map(apts));
    resolution = await resolveDistroVersion(suites, step.component.debianPackage!, version);
    version = resolution.version;
  } else if (version === 'latest') {
    version = await resolveLatestRelease(env, step.component, options);
  }
  env.log(
    `${step.spec.name}@${step.version} → ${version}${resolution ? ` (Debian ${resolution.debianVersion}, ${resolution.suite})` : ''}`,
  );
  const dir = componentDir(plan.prefix, step.spec.name, version);
  return { step, version, dir, ...(resolution ? { resolution } : {}) };
}

/**
 * Stages every component not installed yet, then places each with one rename. Nothing is placed
 * until everything staged (a bad checksum anywhere leaves the prefix as it was); a failure
 * while placing removes what was placed. Returns placed directory → what its source said.
 */
async function stageAndPlace(
  env: InstallEnv,
  prefix: string,
  pending: Resolved[],
  apts: AptPool,
  created: CreatedPaths,
  options: InstallOptions,
): Promise<Map<string, StagedComponent>> {
  if (pending.length > 0) await created.mkdir(prefix);
  await removeAbandonedTemps(prefix, env.log);
  const stagingRoot = join(prefix, tempEntryName('staging'));
  const staged: { r: Resolved; dir: string; result: StagedComponent }[] = [];
  const placed = new Map<string, StagedComponent>();
  try {
    for (const r of pending) {
      // Reused only when its files still match the seal it was placed with; else made again.
      if ((await exists(r.dir)) && (await usableEntry(r.dir, prefix, env.log))) {
        env.log(`${r.step.spec.name} ${r.version}: already in ${r.dir}, reusing it`);
        continue;
      }
      const dir = join(stagingRoot, `${r.step.spec.name}-${r.version}`);
      staged.push({ r, dir, result: await stageOne(env, r, dir, apts, options) });
    }
    for (const s of staged) {
      await created.mkdir(dirname(s.r.dir));
      await rename(s.dir, s.r.dir);
      placed.set(s.r.dir, s.result);
      created.add(s.r.dir);
    }
  } catch (error) {
    for (const dir of placed.keys()) await rm(dir, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(stagingRoot, { recursive: true, force: true });
  }
  return placed;
}

/** One component into its staging directory: fetched, verified, unpacked, bin/ linked, SOURCE noted. */
async function stageOne(
  env: InstallEnv,
  r: Resolved,
  dir: string,
  apts: AptPool,
  options: InstallOptions,
): Promise<StagedComponent> {
  await mkdir(dir, { recursive: true });
  const result =
    r.step.source === 'distro'
      ? await stageDistro(env, await apts(r.resolution!.suite), r.step.component, r.resolution!, dir, r.dir)
      : await stageRelease(env, r.step.component, r.version, dir, options);
  for (const junk of ['.debs', '.libdebs', '.downloads'])
    await rm(join(dir, junk), { recursive: true, force: true });
  await mkdir(join(dir, 'bin'), { recursive: true });
  for (const { link, target } of binLinks(result.binaries)) await symlink(target, join(dir, link));
  await writeFile(join(dir, 'SOURCE'), `${result.detail}\n`);
  // Complete and verified (digests of the downloads): sealed before it is renamed into place.
  await sealEntry(dir, ['SOURCE', ...Object.values(result.binaries)]);
  return result;
}

/** Every main binary runs and reports the version asked for (tools other than crictl print none). */
async function verifyInstalled(
  env: InstallEnv,
  pending: Resolved[],
  placed: Map<string, StagedComponent>,
): Promise<InstalledComponent[]> {
  const out: InstalledComponent[] = [];
  for (const r of pending) {
    const info = r.step.component;
    const binaries = installedBinaries(info, r.step.source as 'release' | 'distro', r.dir);
    const mainName = info.binaries[0]!.name;
    let reported: string | null = null;
    let output = '';
    if (info.role !== 'tool' || info.name === 'crictl') {
      ({ version: reported, output } = await readVersion(env, r.step.spec.name, binaries[mainName]!));
      if (reported && !sameVersion(r.version, reported)) {
        throw new RbError(
          'INSTALL_VERSION',
          `${r.dir}/bin/${mainName} reports version ${reported}, expected ${r.version}`,
          'the download is not what its name says',
        );
      }
    }
    out.push({
      name: r.step.spec.name,
      role: info.role,
      version: r.version,
      source: r.step.source,
      dir: r.dir,
      binaries,
      reported,
      detail: placed.get(r.dir)?.detail ?? output,
      createdByThisInstall: placed.has(r.dir),
      ...verifiedBy(placed.get(r.dir)),
    });
  }
  return out;
}

/** The record's `verification` of a release placed by this install (each digest now known). */
function verifiedBy(staged: StagedComponent | undefined): Pick<InstalledComponent, 'verification'> {
  const verification = staged?.verification?.flatMap((v) =>
    v.digest === null ? [] : [{ ...v, digest: v.digest }],
  );
  return verification && verification.length > 0 ? { verification } : {};
}

/** Lists what is under the prefix: component → versions (for `install --list`). */
export async function listInstalled(prefix: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const name of Object.keys(COMPONENTS)) {
    try {
      const versions = (await readdir(join(prefix, name), { withFileTypes: true }))
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
      if (versions.length > 0) out[name] = versions.sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new RbError('INSTALL_LIST', `${prefix}/${name}: ${errorMessage(error)}`);
    }
  }
  return out;
}
