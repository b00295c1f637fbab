// The `distro` source: Debian packages from any suite, fetched through a private apt config
// (own sources.list, lists, cache and an empty dpkg status under <prefix>/apt/<suite>) and
// unpacked with dpkg-deb into the component's directory. The host's apt state and libc are never
// touched. A binary that needs a newer glibc than the host's is run through that suite's own
// glibc: a copy is pointed at a private loader and rpath with patchelf (shared/docs/stack.md).
import { access, chmod, copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RbError } from '../errors.ts';
import { archNames, type ComponentInfo } from './components.ts';
import {
  compareDotted,
  dependencyNames,
  parseControlStanza,
  parseMadison,
  requiredGlibc,
  upstreamVersion,
} from './debian.ts';
import type { InstallEnv } from './env.ts';
import type { StagedComponent } from './stage.ts';

export const DEFAULT_DEBIAN_MIRROR = 'http://deb.debian.org/debian';

export interface DistroResolution {
  version: string;
  suite: string;
  debianVersion: string;
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/**
 * apt-get / apt-cache bound to one suite's private state; `update` runs at most once per instance.
 * `deb-src` reads the suite's Sources index instead (debian-source), in its own state directory.
 */
export class PrivateApt {
  readonly dir: string;
  readonly suite: string;
  readonly mirror: string;
  private readonly env: InstallEnv;
  private readonly kind: 'deb' | 'deb-src';
  private updated = false;

  constructor(
    env: InstallEnv,
    prefix: string,
    suite: string,
    mirror = DEFAULT_DEBIAN_MIRROR,
    kind: 'deb' | 'deb-src' = 'deb',
  ) {
    if (!/^[a-z][a-z0-9-]*$/.test(suite))
      throw new RbError('USAGE_SUITE', `"${suite}" is not a Debian suite name`);
    this.env = env;
    this.suite = suite;
    this.kind = kind;
    this.dir = join(prefix, 'apt', kind === 'deb' ? suite : `${suite}-src`);
    this.mirror = mirror;
  }

  private options(): string[] {
    const d = this.dir;
    return [
      '-o',
      `Dir::Etc::sourcelist=${d}/sources.list`,
      '-o',
      'Dir::Etc::sourceparts=/dev/null',
      '-o',
      `Dir::State::Lists=${d}/lists`,
      '-o',
      `Dir::State::status=${d}/status`,
      '-o',
      `Dir::Cache=${d}/cache`,
      '-o',
      `Dir::Cache::archives=${d}/cache/archives`,
      '-o',
      'APT::Sandbox::User=root',
    ];
  }

  /** Writes the private config (idempotent) and refreshes the package lists once. */
  async update(): Promise<void> {
    if (this.updated) return;
    await mkdir(join(this.dir, 'lists', 'partial'), { recursive: true });
    await mkdir(join(this.dir, 'cache', 'archives', 'partial'), { recursive: true });
    if (!(await exists(join(this.dir, 'status')))) await writeFile(join(this.dir, 'status'), '');
    await writeFile(
      join(this.dir, 'sources.list'),
      `${this.kind} [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${this.mirror} ${this.suite} main\n`,
    );
    this.env.log(`apt: updating the package lists of ${this.suite} (private, in ${this.dir})`);
    await this.env.run('apt-get', ['-q', ...this.options(), 'update']);
    this.updated = true;
  }

  async versions(pkg: string): Promise<string[]> {
    await this.update();
    const r = await this.env.run('apt-cache', [...this.options(), 'madison', pkg], { allowFailure: true });
    return parseMadison(r.stdout)
      .filter((e) => e.package === pkg)
      .map((e) => e.version);
  }

  /** `apt-cache showsrc` of a source package: every version's stanza (deb-src only), '' when none. */
  async showsrc(pkg: string): Promise<string> {
    await this.update();
    const r = await this.env.run('apt-cache', [...this.options(), 'showsrc', pkg], { allowFailure: true });
    return r.exitCode === 0 ? r.stdout : '';
  }

  async show(pkg: string, version?: string): Promise<Record<string, string> | null> {
    await this.update();
    const r = await this.env.run(
      'apt-cache',
      [...this.options(), 'show', version ? `${pkg}=${version}` : pkg],
      {
        allowFailure: true,
      },
    );
    return r.exitCode === 0 ? parseControlStanza(r.stdout) : null;
  }

  /** Downloads .deb files into `dir` (apt-get download checks them against the signed lists). */
  async download(pkgs: string[], dir: string): Promise<string[]> {
    await this.update();
    await mkdir(dir, { recursive: true });
    await this.env.run('apt-get', ['-q', ...this.options(), 'download', ...pkgs], { cwd: dir });
    return (await readdir(dir)).filter((f) => f.endsWith('.deb')).map((f) => join(dir, f));
  }
}

/**
 * Finds the suite that has `pkg` at the requested upstream version (or the newest, for
 * `latest`); suites are searched in the order given.
 */
export async function resolveDistroVersion(
  apts: PrivateApt[],
  pkg: string,
  requested: string,
): Promise<DistroResolution> {
  const found: DistroResolution[] = [];
  for (const apt of apts) {
    for (const debianVersion of await apt.versions(pkg)) {
      found.push({ version: upstreamVersion(debianVersion), suite: apt.suite, debianVersion });
    }
  }
  if (requested === 'latest') {
    const newest = found.sort((a, b) => compareDotted(b.version, a.version))[0];
    if (newest) return newest;
  } else {
    const match = found.find((f) => f.version === requested || f.debianVersion === requested);
    if (match) return { ...match, version: upstreamVersion(match.debianVersion) };
  }
  const have = found.map((f) => `${f.version} (${f.suite})`).join(', ') || 'none';
  throw new RbError(
    'INSTALL_VERSION',
    `Debian package ${pkg} ${requested} is in none of the suites ${apts.map((a) => a.suite).join(', ')}`,
    `available: ${have}`,
  );
}

/** Library packages a package needs, transitively (`lib*` only, plus libc6 whose loader we use). */
async function libraryClosure(apt: PrivateApt, pkg: string, debianVersion: string): Promise<string[]> {
  const seen = new Set<string>(['libc6']);
  let frontier = [`${pkg}=${debianVersion}`];
  for (let depth = 0; depth < 4 && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const item of frontier) {
      const [name, version] = item.split('=');
      const fields = await apt.show(name!, version);
      if (!fields) continue;
      const deps = dependencyNames([fields['Pre-Depends'], fields.Depends].filter(Boolean).join(','));
      for (const dep of deps) {
        if (dep.startsWith('lib') && !seen.has(dep)) {
          seen.add(dep);
          next.push(dep);
        }
      }
    }
    frontier = next;
  }
  return [...seen];
}

async function findFile(root: string, dirs: string[], name: string): Promise<string | null> {
  for (const d of dirs) if (await exists(join(root, d, name))) return join(root, d, name);
  return null;
}

/**
 * Downloads and unpacks the package into `staging/root`; for each binary that needs a newer
 * glibc than the host's, unpacks the suite's libraries into `staging/libs` and writes a patched
 * copy to `staging/bin/<name>` whose loader and rpath point at `finalDir/libs` (the directory the
 * staging directory becomes).
 */
export async function stageDistro(
  env: InstallEnv,
  apt: PrivateApt,
  component: ComponentInfo,
  resolution: DistroResolution,
  staging: string,
  finalDir: string,
): Promise<StagedComponent> {
  const pkg = component.debianPackage!;
  const debs = await apt.download([`${pkg}=${resolution.debianVersion}`], join(staging, '.debs'));
  const root = join(staging, 'root');
  await mkdir(root, { recursive: true });
  for (const deb of debs) await env.run('dpkg-deb', ['-x', deb, root]);

  const binaries: Record<string, string> = {};
  const needsLibc: string[] = [];
  for (const b of component.binaries) {
    if (!b.distro) continue;
    const path = join(root, b.distro);
    if (!(await exists(path))) {
      throw new RbError(
        'INSTALL_LAYOUT',
        `${pkg} ${resolution.debianVersion} (${resolution.suite}) has no ${b.distro}`,
      );
    }
    binaries[b.name] = join('root', b.distro);
    const need = requiredGlibc(await readFile(path));
    if (need && env.hostGlibc && compareDotted(need, env.hostGlibc) > 0) needsLibc.push(b.name);
  }

  const patched: string[] = [];
  if (needsLibc.length > 0) {
    const { multiarch } = archNames(env.arch);
    const libPkgs = await libraryClosure(apt, pkg, resolution.debianVersion);
    env.log(
      `${pkg} ${resolution.version} needs a newer glibc than the host's ${env.hostGlibc}: private libraries ${libPkgs.join(' ')}`,
    );
    const libs = join(staging, 'libs');
    await mkdir(libs, { recursive: true });
    for (const deb of await apt.download(libPkgs, join(staging, '.libdebs')))
      await env.run('dpkg-deb', ['-x', deb, libs]);
    const libDirs = [`usr/lib/${multiarch}`, `lib/${multiarch}`, 'usr/lib64', 'lib64'];
    await mkdir(join(staging, 'bin'), { recursive: true });
    for (const name of needsLibc) {
      const src = join(staging, binaries[name]!);
      const interp = (await env.run('patchelf', ['--print-interpreter', src])).stdout.trim();
      const loaderName = interp.split('/').pop()!;
      const loader = await findFile(libs, libDirs, loaderName);
      if (!loader)
        throw new RbError('INSTALL_LAYOUT', `${resolution.suite}'s libc6 has no ${loaderName} for ${name}`);
      const finalLoader = join(finalDir, loader.slice(staging.length + 1));
      const rpath = libDirs.map((d) => join(finalDir, 'libs', d)).join(':');
      const dest = join(staging, 'bin', name);
      await copyFile(src, dest);
      await chmod(dest, 0o755);
      await env.run('patchelf', [
        '--set-interpreter',
        finalLoader,
        '--force-rpath',
        '--set-rpath',
        rpath,
        dest,
      ]);
      binaries[name] = join('bin', name);
      patched.push(name);
    }
  }
  return {
    binaries,
    detail: `Debian ${pkg} ${resolution.debianVersion} (${resolution.suite})`,
    patched,
  };
}
