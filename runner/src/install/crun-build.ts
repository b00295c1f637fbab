// The executor of crun's builds: take upstream's release tarball from the Debian archive
// (debian-source, verified by the sha256 of the signed Sources index) or export a ref of a local
// checkout with its submodules (git), run the recipe (recipe-crun.ts) with this host's gcc, check
// `crun --version` names the version and commit, and place it under
// <prefix>/crun/<version>+gcc-<version> with its BUILD.json, sealed (cache-entry.ts): built once
// per (version, compiler), made in a temp directory and renamed into place only when complete.
import { availableParallelism } from 'node:os';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ComponentBuild } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { cachedBuild, debianDeps } from './build-cache.ts';
import type { BuildRequest, BuildResult } from './build-request.ts';
import { removeAbandonedTemps, sealEntry, tempEntryName } from './cache-entry.ts';
import { pickOffer, type SourceOffer } from './debian-source.ts';
import { debianSourceOffers, fetchOrigTarball } from './debian-source-fetch.ts';
import type { InstallEnv } from './env.ts';
import { componentDir, DEFAULT_SUITES } from './plan.ts';
import {
  crunBuildDeps,
  crunCommands,
  crunInvocation,
  crunNotes,
  crunVersionProblem,
  gccToolchain,
  gitlinks,
  tarballCommit,
  tarballVersionHeader,
  type CrunTree,
} from './recipe-crun.ts';

/** One crun tree ready to build. */
interface CrunSource {
  root: string;
  tree: CrunTree;
  /** The directory name's version: `1.21`, or `<tag's version>-g<hash12>` for a checkout. */
  label: string;
  /** What `crun --version` must say: the release, or the checkout's `git describe --tags`. */
  version: string;
  origin: string;
  commit: string | null;
  notes: string[];
}

/** Builds crun the way recipe-crun.ts says, or takes it from the cache. */
export async function buildCrun(env: InstallEnv, request: BuildRequest): Promise<BuildResult> {
  if (request.toolchain)
    throw new RbError(
      'USAGE_TOOLCHAIN',
      `crun is built with this host's gcc; --toolchain ${request.toolchain} names a Go toolchain`,
      'leave --toolchain out for crun',
    );
  await removeAbandonedTemps(request.prefix, env.log);
  const work = join(request.prefix, tempEntryName('build'));
  try {
    const toolchain = gccToolchain(
      (await env.run('gcc', ['-dumpfullversion'], { allowFailure: true }).catch(() => ({ stdout: '' })))
        .stdout,
    );
    const fromCache = async (label: string): Promise<BuildResult | null> => {
      const dir = componentDir(request.prefix, 'crun', `${label}+${toolchain}`);
      const record = await cachedBuild(dir, request.prefix, env.log);
      if (!record) return null;
      env.log(`crun ${label}: built before with ${toolchain}, in ${dir}`);
      const binary = join(dir, 'bin', 'crun');
      return { binary, binaries: { crun: binary }, dir, version: label, record, cached: true };
    };
    // A Debian source package names its version before anything is downloaded.
    const offer = request.source === 'debian-source' ? await debianOffer(env, request) : null;
    const early = offer ? await fromCache(offer.version) : null;
    if (early) return early;
    const src = offer ? await fromDebian(env, offer, request, work) : await fetchCrun(env, request, work);
    const cached = await fromCache(src.label);
    if (cached) return cached;
    const dir = componentDir(request.prefix, 'crun', `${src.label}+${toolchain}`);
    const binary = join(dir, 'bin', 'crun');
    const configureAc = await readFile(join(src.root, 'configure.ac'), 'utf8');
    const deps = await debianDeps(env, crunBuildDeps(configureAc, src.tree));
    const invocation = crunInvocation(src.tree, Math.max(1, availableParallelism()));
    for (const argv of invocation.steps) {
      env.log(`crun ${src.label}: ${argv.join(' ')}  (${toolchain})`);
      await env.run(argv[0]!, argv.slice(1), {
        cwd: src.root,
        env: makeEnv(invocation.env),
        timeoutMs: 30 * 60_000,
      });
    }
    const built = join(src.root, 'crun');
    const check = await env.run(built, ['--version'], { allowFailure: true, timeoutMs: 30_000 });
    const output = `${check.stdout}${check.stderr}`;
    const problem = check.exitCode === 0 ? crunVersionProblem(output, src.version, src.commit) : 'it failed';
    if (problem)
      throw new RbError(
        'INSTALL_BUILD',
        `${built} --version: ${problem} ("${output.trim().split('\n').slice(0, 2).join(' / ')}")`,
        'the recipe no longer builds this version as its release is built: fix runner/src/install/recipe-crun.ts',
      );
    const record: ComponentBuild = {
      source: request.source,
      origin: src.origin,
      commit: src.commit,
      toolchain,
      command: crunCommands(invocation),
      env: invocation.env,
      stamps: { version: src.version, ...(src.commit ? { commit: src.commit } : {}) },
      deps,
      rules: [
        "build-aux/release.sh and nix/derivation.nix: ./configure, git-version.h, make -C libocispec libocispec.la, make crun, LDFLAGS '-s -w' (stripped)",
      ],
      notes: [...crunNotes(Object.keys(deps)), ...src.notes],
      builtAt: new Date().toISOString(),
    };
    const out = join(work, 'out');
    await mkdir(join(out, 'bin'), { recursive: true });
    await rename(built, join(out, 'bin', 'crun'));
    await chmod(join(out, 'bin', 'crun'), 0o755);
    await writeFile(join(out, 'BUILD.json'), `${JSON.stringify(record, null, 2)}\n`);
    await writeFile(join(out, 'SOURCE'), `built from ${src.origin} with ${toolchain}\n`);
    await sealEntry(out, ['BUILD.json', join('bin', 'crun')]);
    await mkdir(join(request.prefix, 'crun'), { recursive: true });
    // Another build of the same key may have won the race: its result is as good as ours.
    await rename(out, dir).catch((error: unknown) => {
      if (
        (error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' &&
        (error as NodeJS.ErrnoException).code !== 'EEXIST'
      )
        throw error;
    });
    return { binary, binaries: { crun: binary }, dir, version: src.label, record, cached: false };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The build's environment: the host's PATH and HOME, C messages, and the recipe's variables. */
function makeEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
    LANG: 'C',
    ...extra,
  };
}

async function fetchCrun(env: InstallEnv, request: BuildRequest, work: string): Promise<CrunSource> {
  if (request.source === 'git') {
    if (!request.gitDir)
      throw new RbError(
        'USAGE_GIT_DIR',
        'the git source needs --git-dir <checkout>',
        'e.g. --git-dir ~/src/crun',
      );
    return fromGit(env, request.gitDir, request.version, join(work, 'src'));
  }
  throw new RbError(
    'INSTALL_UNSUPPORTED',
    `crun: source "${request.source}" has no crun build`,
    'build crun with --source debian-source (its release tarballs from the Debian archive) or --source git',
  );
}

function debianOptions(request: BuildRequest) {
  return {
    prefix: request.prefix,
    suites: request.suites ?? DEFAULT_SUITES,
    ...(request.debianMirror ? { mirror: request.debianMirror } : {}),
  };
}

/** The first suite's source package of the requested version. */
async function debianOffer(env: InstallEnv, request: BuildRequest): Promise<SourceOffer> {
  const offers = await debianSourceOffers(env, 'crun', debianOptions(request));
  return pickOffer(offers, 'crun', request.version);
}

/** Upstream's tarball of that source package, verified, unpacked. */
async function fromDebian(
  env: InstallEnv,
  offer: SourceOffer,
  request: BuildRequest,
  work: string,
): Promise<CrunSource> {
  const options = debianOptions(request);
  const { path, file, url } = await fetchOrigTarball(
    env,
    offer,
    'crun',
    join(work, 'download'),
    options.mirror,
  );
  const unpacked = join(work, 'src');
  await mkdir(unpacked, { recursive: true });
  await env.run('tar', ['-xf', path, '-C', unpacked, '--strip-components=1']);
  const commit = tarballCommit(
    await readFile(join(unpacked, '.tarball-git-version.h'), 'utf8').catch(() => ''),
  );
  const version = (
    await readFile(join(unpacked, '.tarball-version'), 'utf8').catch(() => offer.version)
  ).trim();
  return {
    root: unpacked,
    tree: 'tarball',
    label: offer.version,
    version,
    origin: `${url} (Debian crun ${offer.debianVersion}, ${offer.suite}) sha256:${file.sha256}`,
    commit,
    notes: commit ? [] : [`${file.name} carries no .tarball-git-version.h: the source commit is unknown`],
  };
}

/**
 * A ref of a local checkout exported with `git archive`, each submodule (libocispec, and its own)
 * from the checkout's initialised copy at the commit the tree pins; then given the
 * .tarball-version and .tarball-git-version.h `make dist` would write, so the binary reports them.
 */
async function fromGit(env: InstallEnv, gitDir: string, ref: string, dest: string): Promise<CrunSource> {
  const rev = await env.run(
    'git',
    ['-C', gitDir, 'rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`],
    {
      allowFailure: true,
    },
  );
  if (rev.exitCode !== 0)
    throw new RbError(
      'INSTALL_VERSION',
      `${gitDir}: no commit "${ref}"`,
      'name a tag (crun@1.21), branch or commit of that checkout',
    );
  const hash = rev.stdout.trim();
  const describe = (
    await env.run('git', ['-C', gitDir, 'describe', '--tags', '--always', hash])
  ).stdout.trim();
  const tagVersion = /^(\d+(?:\.\d+)+)/.exec(describe)?.[1] ?? '0.0';
  const missing: string[] = [];
  await exportTree(env, gitDir, hash, dest, '', missing);
  if (missing.length > 0)
    throw new RbError(
      'INSTALL_UNSUPPORTED',
      `${gitDir}@${ref}: the submodule${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not checked out at the commit this ref pins (crun builds libocispec from its submodule)`,
      `git -C ${gitDir} checkout ${ref} && git -C ${gitDir} submodule update --init --recursive`,
    );
  await writeFile(join(dest, '.tarball-version'), `${describe}\n`);
  await writeFile(join(dest, '.tarball-git-version.h'), tarballVersionHeader(hash));
  return {
    root: dest,
    tree: 'git',
    // As the Go builds of a checkout: never the bare release's name, which a tarball build has.
    label: `${tagVersion}-g${hash.slice(0, 12)}`,
    version: describe,
    origin: `${gitDir}@${ref}`,
    commit: hash,
    notes: [
      'built from a checkout: ./configure and the Makefiles were made here by autoreconf, not shipped in a release tarball',
    ],
  };
}

/** `git archive` of `commit` into `dest`, then each gitlink from the submodule's own checkout. */
async function exportTree(
  env: InstallEnv,
  repo: string,
  commit: string,
  dest: string,
  label: string,
  missing: string[],
): Promise<void> {
  await mkdir(dest, { recursive: true });
  const tar = `${dest}.tar`;
  await env.run('git', ['-C', repo, 'archive', '--format=tar', '-o', tar, commit]);
  await env.run('tar', ['-xf', tar, '-C', dest]);
  await rm(tar, { force: true });
  const tree = await env.run('git', ['-C', repo, 'ls-tree', '-r', commit]);
  for (const link of gitlinks(tree.stdout)) {
    const sub = join(repo, link.path);
    const name = label ? `${label}/${link.path}` : link.path;
    // Only a submodule's own repository (it has .git) may answer; else git would ask the parent.
    const has = await readFile(join(sub, '.git')).then(
      () => true,
      (error: unknown) => (error as NodeJS.ErrnoException).code === 'EISDIR',
    );
    const known = has
      ? (
          await env.run('git', ['-C', sub, 'cat-file', '-e', `${link.commit}^{commit}`], {
            allowFailure: true,
          })
        ).exitCode === 0
      : false;
    if (!known) {
      missing.push(`${name} (${link.commit.slice(0, 12)})`);
      continue;
    }
    await rm(join(dest, link.path), { recursive: true, force: true });
    await exportTree(env, sub, link.commit, join(dest, link.path), name, missing).catch((error: unknown) => {
      missing.push(`${name}: ${errorMessage(error)}`);
    });
  }
}
