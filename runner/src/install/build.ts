// The executor of the build sources: fetch the source (Go module proxy or a local git checkout),
// pick the Go toolchain the release used, run the recipe's go commands, check the binary reports
// the version and commit it was stamped with, and place it under
// <prefix>/<component>/<version>+<toolchain> with its BUILD.json. A directory that is already
// there, and still matches its seal (cache-entry.ts), is the cache: (component, version, toolchain)
// built once. Every decision is made by the
// pure build-recipe.ts; this only runs it.
import { randomBytes } from 'node:crypto';
import { access, chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ComponentBuild } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import {
  builtExecutables,
  goInvocation,
  goRecipe,
  moduleFor,
  recipeFor,
  stepCommand,
} from './build-recipe.ts';
import type { GoRecipe } from './go-recipe.ts';
import { removeAbandonedTemps, sealEntry, tempEntryName } from './cache-entry.ts';
import { cachedBuild, debianDeps, readCached } from './build-cache.ts';
import {
  ModuleDownloadSchema,
  moduleSource,
  proxyInfoUrls,
  stampValues,
  staleBuild,
  type InfoAnswer,
  type ModuleDownload,
} from './module-source.ts';
import { archNames } from './components.ts';
import { localReplacementModules, modulePath, packageNeedsModule, realSourceTree } from './go-imports.ts';
import { requiredGlibc } from './debian.ts';
import type { InstallEnv } from './env.ts';
import { BuildFailedError } from './build-failure.ts';
import { buildEnv, chooseToolchain, goJson } from './go-toolchain.ts';
import { readTreeRecipe } from './tree-source.ts';
import { componentDir } from './plan.ts';
import type { BuildRequest, BuildResult } from './build-request.ts';
import { buildCrun } from './crun-build.ts';
import { parseReportedVersion, sameVersion } from './versions.ts';

export type { BuildRequest, BuildResult } from './build-request.ts';

/** Where one version's source sits and what it is. */
interface FetchedSource {
  root: string;
  /** Release or pseudo-version (`1.2.0`), or `<VERSION>-g<hash12>` for git. */
  label: string;
  origin: string;
  commit: string | null;
  /** Stamped as the Makefile's `git describe --long --always` would. */
  describe: string;
  /** `git describe --match 'v[0-9]*' --always` (the tag at a release), as containerd stamps it. */
  tag: string;
  /** Copy the tree before building: the module cache is read-only. */
  copy: boolean;
  /** Why the commit is unknown (module-source.ts), for the record; null when known. */
  note: string | null;
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/**
 * The module at a version from the proxy (`go mod download -json`), with the commit it was cut
 * from read from that answer or the `.info` file it names (module-source.ts).
 */
async function fetchModule(env: InstallEnv, recipe: GoRecipe, version: string): Promise<FetchedSource> {
  const query = /^\d+\.\d+/.test(version) ? `v${version}` : version;
  const module = moduleFor(recipe, version);
  let info: ModuleDownload;
  try {
    info = ModuleDownloadSchema.parse(await goJson(env, ['mod', 'download', '-json', `${module}@${query}`]));
  } catch (error) {
    throw new RbError(
      'INSTALL_VERSION',
      `${recipe.component}@${version}: the Go module proxy has no ${module}@${query} (${errorMessage(error).split('\n').slice(-2).join(' ')})`,
      `list what it serves: runtime-bench versions ${recipe.component} --source go`,
    );
  }
  if (!info.Dir || !info.Version)
    throw new RbError('INSTALL_VERSION', `${module}@${query}: ${info.Error ?? 'no module directory'}`);
  const infos = info.Origin?.Hash ? [] : await infoAnswers(env, module, info);
  return { ...moduleSource(module, info, infos), root: info.Dir, copy: true };
}

/**
 * The `.info` answers for a version whose `go mod download -json` names no origin: the module
 * cache's file, then each proxy's own (a cached `.info` written by a version listing has no
 * Origin while the proxy's carries it). A proxy that does not answer is one answer fewer.
 */
async function infoAnswers(env: InstallEnv, module: string, info: ModuleDownload): Promise<InfoAnswer[]> {
  const cached: InfoAnswer = {
    source: info.Info ?? 'the module cache',
    text: info.Info ? await readFile(info.Info, 'utf8').catch(() => null) : null,
  };
  const { GOPROXY } = (await goJson(env, ['env', '-json', 'GOPROXY'])) as { GOPROXY?: string };
  const asked: InfoAnswer[] = [];
  for (const url of proxyInfoUrls(GOPROXY ?? '', module, info.Version!)) {
    const text = await env
      .fetch(url)
      .then((r) => (r.ok ? r.text() : null))
      .catch(() => null);
    asked.push({ source: url, text });
    if (text !== null) break;
  }
  return [cached, ...asked];
}

/** A ref of a local checkout, exported (`git archive`) into `dest`: what was committed, nothing else. */
async function fetchGit(
  env: InstallEnv,
  recipe: GoRecipe,
  gitDir: string,
  ref: string,
  dest: string,
): Promise<FetchedSource> {
  const git = (args: string[], allowFailure = false) =>
    env.run('git', ['-C', gitDir, ...args], { allowFailure });
  const rev = await git(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], true);
  if (rev.exitCode !== 0)
    throw new RbError(
      'INSTALL_VERSION',
      `${gitDir}: no commit "${ref}"`,
      'name a branch, tag or commit of that checkout',
    );
  const hash = rev.stdout.trim();
  const describe = (await git(['describe', '--long', '--always', hash])).stdout.trim();
  const tag = (await git(['describe', '--match', 'v[0-9]*', '--always', hash])).stdout.trim();
  await mkdir(dest, { recursive: true });
  const tar = `${dest}.tar`;
  await git(['archive', '--format=tar', '-o', tar, hash]);
  await env.run('tar', ['-xf', tar, '-C', dest]);
  await rm(tar, { force: true });
  const fileVersion = recipe.versionFile
    ? (await readFile(join(dest, recipe.versionFile), 'utf8').catch(() => '0.0.0')).trim()
    : (/^v?(\d+\.\d+\.\d+)/.exec(tag)?.[1] ?? '0.0.0');
  return {
    root: dest,
    label: `${fileVersion.replace(/\+.*$/, '')}-g${hash.slice(0, 12)}`,
    origin: `${gitDir}@${ref}`,
    commit: hash,
    describe,
    tag,
    copy: false,
    note: null,
  };
}

/** Why a cached build is not this recipe's: its commands differ (the recipe changed since), or null. */
function changedRecipe(cached: ComponentBuild, commands: string[]): string | null {
  return cached.command.join('\n') === commands.join('\n')
    ? null
    : `its recipe differs from this one's (built with "${cached.command.join(' && ')}")`;
}

/**
 * The build record of a binary runtime-bench built (`<dir>/bin/<name>` beside `<dir>/BUILD.json`),
 * for the result's provenance; null for any other binary.
 */
export async function readBuildRecord(binary: string): Promise<ComponentBuild | null> {
  const bin = dirname(binary);
  return basename(bin) === 'bin' ? readCached(dirname(bin)) : null;
}

/**
 * Builds one version of a component the way its upstream release is built, or takes it from the
 * cache. The binary is checked to report the version and commit it was stamped with, and (for a
 * static recipe) to need no shared glibc, before it is placed.
 */
export async function buildComponent(env: InstallEnv, request: BuildRequest): Promise<BuildResult> {
  // crun is C, built with autotools: its own recipe and executor.
  if (request.component === 'crun') return buildCrun(env, request);
  if (request.source === 'debian-source')
    throw new RbError(
      'INSTALL_UNSUPPORTED',
      `${request.component}: the debian-source source builds crun only`,
      'use --source go or git for the Go components',
    );
  if (request.source === 'cargo')
    throw new RbError(
      'INSTALL_UNSUPPORTED',
      `${request.component}: the cargo source is not implemented yet`,
      'use --source release or path',
    );
  const recipe = goRecipe(request.component);
  await removeAbandonedTemps(request.prefix, env.log);
  const work = join(request.prefix, tempEntryName('build'));
  try {
    let src: FetchedSource;
    if (request.source === 'git') {
      if (!request.gitDir)
        throw new RbError(
          'USAGE_GIT_DIR',
          'the git source needs --git-dir <checkout>',
          `e.g. --git-dir ~/src/${request.component}`,
        );
      src = await fetchGit(env, recipe, request.gitDir, request.version, join(work, 'src'));
    } else src = await fetchModule(env, recipe, request.version);
    // A git tree of a component whose Makefile says how it builds is built that way (tree-recipe.ts);
    // a release from the module proxy by the recipe's rules for its version.
    const ownTree = request.source === 'git' && recipe.fromTree !== undefined;
    const chosen = request.toolchain
      ? { toolchain: request.toolchain, note: null, rule: `--toolchain ${request.toolchain}` }
      : await chooseToolchain(env, recipe, src.root, ownTree);
    const toolchain = chosen.toolchain;
    const dir = componentDir(request.prefix, request.component, `${src.label}+${toolchain}`);
    const cached = await cachedBuild(dir, request.prefix, env.log);
    const fileVersion = recipe.versionFile
      ? (await readFile(join(src.root, recipe.versionFile), 'utf8')).trim()
      : src.label;
    const { flags, rules, notes, unsupported } =
      ownTree && recipe.fromTree
        ? await readTreeRecipe(
            { ...recipe, fromTree: recipe.fromTree },
            src.origin,
            src.root,
            fileVersion,
            archNames(env.arch).arch,
          )
        : recipeFor(recipe, fileVersion.replace(/\+.*$/, ''));
    const executables = builtExecutables(flags);
    const binaries = Object.fromEntries(executables.map((e) => [e.output, join(dir, 'bin', e.output)]));
    const binaryPath = binaries[flags.output]!;
    const invocation = goInvocation(
      flags,
      stampValues(src, { version: fileVersion, toolchain, module: moduleFor(recipe, src.label) }),
    );
    const commands = invocation.steps.map((a, i) => stepCommand(a, invocation.stepEnv[i]!));
    const stale = cached ? (staleBuild(cached, src) ?? changedRecipe(cached, commands)) : null;
    if (stale) env.log(`${request.component} ${src.label}: rebuilding ${dir}: ${stale}`);
    if (cached && !stale) {
      env.log(`${request.component} ${src.label}: built before with ${toolchain}, in ${dir}`);
      return { binary: binaryPath, binaries, dir, version: src.label, record: cached, cached: true };
    }
    if (unsupported)
      throw new RbError(
        'INSTALL_UNSUPPORTED',
        `${request.component}@${src.label} cannot be built from source here`,
        unsupported,
      );
    const goMod = await readFile(join(src.root, 'go.mod'), 'utf8');
    // A nested module the proxy's copy leaves out matters only when the package imports it.
    const absent = [];
    for (const r of localReplacementModules(goMod)) {
      if (await exists(join(src.root, r.dir))) continue;
      const own = modulePath(goMod);
      if (own && !(await packageNeedsModule(realSourceTree, src.root, own, flags.package, r.module))) {
        env.log(
          `${request.component} ${src.label}: ${r.dir} (${r.module}) is not in this copy; ${flags.package} does not import it`,
        );
        continue;
      }
      absent.push(r.dir);
    }
    if (absent.length > 0)
      throw new RbError(
        'INSTALL_UNSUPPORTED',
        `${request.component}@${src.label}: its go.mod replaces a module with ${absent.join(', ')}, a nested module the module proxy's copy leaves out`,
        `build it from a checkout of the upstream repository: --source git --git-dir <checkout> ${request.component}@v${src.label}`,
      );
    const deps = await debianDeps(env, flags.debianDeps);
    let root = src.root;
    if (src.copy) {
      root = join(work, 'src');
      await mkdir(work, { recursive: true });
      await env.run('cp', ['-r', src.root, root]);
      await env.run('chmod', ['-R', 'u+w', root]);
    }
    const recordAt = (): ComponentBuild => ({
      source: request.source,
      origin: src.origin,
      commit: src.commit,
      toolchain,
      command: commands,
      env: invocation.env,
      stamps: invocation.stamps,
      deps,
      rules: [...rules, ...(chosen.rule ? [chosen.rule] : [])],
      notes: [
        ...notes,
        ...(src.commit ? [] : [...(src.note ? [src.note] : []), `${src.origin}: ${recipe.noCommitNote}`]),
        ...(chosen.note ? [chosen.note] : []),
      ],
      builtAt: new Date().toISOString(),
    });
    try {
      for (const [i, args] of invocation.steps.entries()) {
        env.log(
          `${request.component} ${src.label}: ${stepCommand(args, invocation.stepEnv[i]!)}  (${toolchain})`,
        );
        await env.run('go', args, {
          cwd: root,
          env: buildEnv({ ...invocation.env, ...invocation.stepEnv[i] }),
          timeoutMs: 30 * 60_000,
        });
      }
      await checkBuilt(env, recipe, join(root, flags.output), fileVersion, invocation.stamps);
      for (const e of executables) await checkLinking(join(root, e.output), e.static);
    } catch (error) {
      // What was run goes with the failure: a bisection reports the recipe a commit failed with.
      throw new BuildFailedError(recordAt(), error);
    }
    const record = recordAt();
    const out = join(work, 'out');
    await mkdir(join(out, 'bin'), { recursive: true });
    for (const e of executables) {
      await rename(join(root, e.output), join(out, 'bin', e.output));
      await chmod(join(out, 'bin', e.output), 0o755);
    }
    await writeFile(join(out, 'BUILD.json'), `${JSON.stringify(record, null, 2)}\n`);
    await writeFile(join(out, 'SOURCE'), `built from ${src.origin} with ${toolchain}\n`);
    // Sealed only now, complete and checked: the seal (CONTENT.sha256) is what every later use verifies.
    await sealEntry(out, ['BUILD.json', ...executables.map((e) => join('bin', e.output))]);
    await mkdir(join(request.prefix, request.component), { recursive: true });
    // A stale build is moved aside, then replaced (a running binary keeps its open file).
    if (stale && (await exists(dir))) {
      const aside = `${dir}.stale-${randomBytes(4).toString('hex')}`;
      await rename(dir, aside);
      await rm(aside, { recursive: true, force: true });
    }
    // Another build of the same key may have won the race: its result is as good as ours.
    if (!(await exists(dir))) await rename(out, dir);
    return { binary: binaryPath, binaries, dir, version: src.label, record, cached: false };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The built binary runs and says the version and every stamp it was given (its commit, revision). */
async function checkBuilt(
  env: InstallEnv,
  recipe: GoRecipe,
  binary: string,
  fileVersion: string,
  stamps: Record<string, string>,
): Promise<void> {
  const check = recipe.versionCheck;
  const args = check?.args ?? ['--version'];
  const r = await env.run(binary, args, { allowFailure: true, timeoutMs: 30_000 });
  const output = `${r.stdout}${r.stderr}`;
  const reported = parseReportedVersion(recipe.component, output);
  const expected = fileVersion.replace(/\+.*$/, '').replace(/^v/, '');
  const missing = Object.values(stamps).filter((v) => v !== '' && !output.includes(v));
  if (
    // A recipe's own check may exit non-zero after printing (its `why` says so).
    (r.exitCode !== 0 && !check) ||
    !reported ||
    !sameVersion(expected.replace(/-.*$/, ''), reported) ||
    missing.length > 0
  )
    throw new RbError(
      'INSTALL_BUILD',
      `${binary} ${args.join(' ')} says "${output.trim().split('\n').slice(0, 2).join(' / ')}", expected version ${fileVersion} and ${missing.join(', ') || 'its stamps'}`,
      'the recipe no longer stamps this version the way its Makefile does: fix the recipe under runner/src/install/',
    );
}

/** A binary whose release is static needs no shared glibc (one built against the host's may). */
async function checkLinking(binary: string, isStatic: boolean): Promise<void> {
  if (isStatic && requiredGlibc(await readFile(binary)) !== null)
    throw new RbError(
      'INSTALL_BUILD',
      `${binary} links glibc dynamically; the release is static`,
      "check the recipe's -extldflags and CGO_ENABLED",
    );
}
