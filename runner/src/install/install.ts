// Orchestration of `runtime-bench install`: resolve → stage everything → place → verify → record.
// Nothing lands under <prefix>/<component>/<version> until every component has been downloaded
// and verified, so a bad checksum anywhere leaves the prefix as it was.
import { randomBytes } from 'node:crypto';
import { access, mkdir, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { stringify } from 'yaml';
import type { ConfigInput } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { COMPONENTS, handlerName, type ComponentName } from './components.ts';
import { PrivateApt, resolveDistroVersion, stageDistro, type DistroResolution } from './distro.ts';
import type { InstallEnv } from './env.ts';
import { locateBinaries } from './path-source.ts';
import { buildPlan, componentDir, type InstallRequest, type PlanStep } from './plan.ts';
import type { InstallRecord, InstalledComponent } from './record.ts';
import { writeInstallRecord } from './record.ts';
import { resolveLatestRelease, stageRelease, type ReleaseOptions } from './release.ts';
import type { StagedComponent } from './stage.ts';
import { parseReportedVersion, sameVersion } from './versions.ts';

export interface InstallOptions extends ReleaseOptions {
  /** Where the record goes; the stack config is written beside it. */
  statePath: string;
  debianMirror?: string;
}

/** OCI runtimes the stack knows how to register (kata is refused by the plan). */
type HandlerKind = 'runc' | 'crun' | 'youki' | 'runsc';

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
  const r = await env.run(binary, COMPONENTS[name].versionArgs, { allowFailure: true, timeoutMs: 30_000 });
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

interface Pending {
  step: PlanStep;
  version: string;
  dir: string;
  resolution?: DistroResolution;
}

/** Installs what the request names; writes the record and the stack config; returns the record. */
export async function install(
  env: InstallEnv,
  request: InstallRequest,
  options: InstallOptions,
): Promise<InstallRecord> {
  const plan = buildPlan(request);
  const created: string[] = [];
  const apts = new Map<string, PrivateApt>();
  const aptFor = async (suite: string) => {
    let apt = apts.get(suite);
    if (!apt) {
      apt = new PrivateApt(env, plan.prefix, suite, options.debianMirror);
      created.push(...(await mkdirTracked(apt.dir)));
      apts.set(suite, apt);
    }
    return apt;
  };

  // 1. Resolve versions (latest, Debian suites) and directories.
  const components: InstalledComponent[] = [];
  const pending: Pending[] = [];
  for (const step of plan.steps) {
    const name = step.spec.name;
    if (step.source === 'path') {
      const binaries = await locateBinaries(step.component, step.spec.path);
      const main = binaries[step.component.binaries[0]!.name]!;
      const { version, output } = await readVersion(env, name, main);
      if (step.version && version && !sameVersion(step.version, version)) {
        throw new RbError(
          'INSTALL_VERSION',
          `${name}@${step.version}: ${main} is version ${version}`,
          `install ${name} ${step.version}, or ask for ${name}@${version}`,
        );
      }
      const v = version ?? step.version ?? 'unknown';
      components.push({
        name,
        role: step.component.role,
        version: v,
        source: 'path',
        dir: null,
        binaries,
        reported: version,
        detail: output,
        createdByThisInstall: false,
      });
      continue;
    }
    let version = step.version!;
    let resolution: DistroResolution | undefined;
    if (step.source === 'distro') {
      const suites = await Promise.all(plan.suites.map(aptFor));
      resolution = await resolveDistroVersion(suites, step.component.debianPackage!, version);
      version = resolution.version;
    } else if (version === 'latest') {
      version = await resolveLatestRelease(env, step.component, options);
    }
    env.log(
      `${name}@${step.version} → ${version}${resolution ? ` (Debian ${resolution.debianVersion}, ${resolution.suite})` : ''}`,
    );
    pending.push({
      step,
      version,
      dir: componentDir(plan.prefix, name, version),
      ...(resolution ? { resolution } : {}),
    });
  }

  // 2. Stage everything that is not installed yet; any failure removes all staging.
  const stagingRoot = join(plan.prefix, `.staging-${randomBytes(4).toString('hex')}`);
  const staged = new Map<Pending, { dir: string; result: StagedComponent }>();
  const placed: string[] = [];
  try {
    for (const p of pending) {
      if (await exists(p.dir)) {
        env.log(`${p.step.spec.name} ${p.version}: already in ${p.dir}, reusing it`);
        continue;
      }
      const dir = join(stagingRoot, `${p.step.spec.name}-${p.version}`);
      await mkdir(dir, { recursive: true });
      const result =
        p.step.source === 'distro'
          ? await stageDistro(
              env,
              await aptFor(p.resolution!.suite),
              p.step.component,
              p.resolution!,
              dir,
              p.dir,
            )
          : await stageRelease(env, p.step.component, p.version, dir, options);
      for (const junk of ['.debs', '.libdebs', '.downloads'])
        await rm(join(dir, junk), { recursive: true, force: true });
      // bin/<name> for every executable: a relative link, or the patched copy already there.
      await mkdir(join(dir, 'bin'), { recursive: true });
      for (const [bin, rel] of Object.entries(result.binaries)) {
        if (rel !== join('bin', bin))
          await symlink(relative(join(dir, 'bin'), join(dir, rel)), join(dir, 'bin', bin));
      }
      await writeFile(join(dir, 'SOURCE'), `${result.detail}\n`);
      staged.set(p, { dir, result });
    }

    // 3. Place: one rename per component.
    for (const [p, s] of staged) {
      created.push(...(await mkdirTracked(dirname(p.dir))));
      await rename(s.dir, p.dir);
      placed.push(p.dir);
      created.push(p.dir);
    }

    // 4. Verify: every placed main binary runs and reports the version we asked for.
    for (const p of pending) {
      const info = p.step.component;
      const binaries = Object.fromEntries(
        info.binaries
          .filter((b) => (p.step.source === 'distro' ? b.distro : b.release))
          .map((b) => [b.name, join(p.dir, 'bin', b.name)]),
      );
      const mainName = info.binaries[0]!.name;
      let reported: string | null = null;
      let output = '';
      if (info.role !== 'tool' || info.name === 'crictl') {
        ({ version: reported, output } = await readVersion(env, p.step.spec.name, binaries[mainName]!));
        if (reported && !sameVersion(p.version, reported)) {
          throw new RbError(
            'INSTALL_VERSION',
            `${p.dir}/bin/${mainName} reports version ${reported}, expected ${p.version}`,
            'the download is not what its name says',
          );
        }
      }
      const detail = staged.get(p)?.result.detail ?? output;
      components.push({
        name: p.step.spec.name,
        role: info.role,
        version: p.version,
        source: p.step.source,
        dir: p.dir,
        binaries,
        reported,
        detail,
        createdByThisInstall: placed.includes(p.dir),
      });
    }
  } catch (error) {
    for (const dir of placed) await rm(dir, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(stagingRoot, { recursive: true, force: true });
  }

  // 5. Record and stack config.
  const handlers = components
    .filter((c) => c.role === 'oci')
    .map((c) => ({
      name: handlerName(c.name, c.version),
      binary: c.binaries[COMPONENTS[c.name as ComponentName].binaries[0]!.name]!,
      kind: c.name as HandlerKind,
    }));
  const stackConfig = join(dirname(options.statePath), 'stack.yaml');
  created.push(...(await mkdirTracked(dirname(options.statePath))));
  const config: ConfigInput = { stack: { extraHandlers: handlers } };
  await writeFile(
    stackConfig,
    `# Written by runtime-bench install: one CRI handler per OCI runtime@version.\n${stringify(config)}`,
  );
  const record: InstallRecord = {
    recordVersion: 1,
    prefix: plan.prefix,
    source: plan.source,
    createdAt: new Date().toISOString(),
    components,
    handlers,
    containerd: components
      .filter((c) => c.name === 'containerd')
      .map((c) => ({ version: c.version, binary: c.binaries.containerd! })),
    crictl: components.find((c) => c.name === 'crictl')?.binaries.crictl ?? null,
    stackConfig,
    created: [...new Set(created)],
    stacks: [],
  };
  await writeInstallRecord(options.statePath, record);
  return record;
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
