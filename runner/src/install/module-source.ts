// What the Go module proxy says of one module version, as build.ts stamps and records it: the
// version, and the commit it was cut from. `go mod download -json` names the commit (Origin.Hash)
// only sometimes; the `.info` file it leaves in the module cache (its `Info` path) holds the
// proxy's own answer — `{"Version":…, "Time":…, "Origin":{"VCS":"git","URL":…,"Hash":…,"Ref":…}}`
// for versions the proxy recorded an origin for. And whether a cached build predates knowing its
// commit. Pure: build.ts reads the file and runs go.
import { z } from 'zod';
import { describeCommit, type StampValues } from './build-recipe.ts';

const OriginSchema = z.looseObject({
  VCS: z.string().optional(),
  URL: z.string().optional(),
  Hash: z.string().optional(),
  Ref: z.string().optional(),
});

/** The fields of `go mod download -json` read here; go adds others. */
export const ModuleDownloadSchema = z.looseObject({
  Path: z.string().optional(),
  Version: z.string().optional(),
  Info: z.string().optional(),
  Dir: z.string().optional(),
  Error: z.string().optional(),
  Origin: OriginSchema.optional(),
});
export type ModuleDownload = z.output<typeof ModuleDownloadSchema>;

/** A module cache `.info` file: what the proxy answered for `<module>/@v/<version>.info`. */
const ModuleInfoSchema = z.looseObject({ Version: z.string(), Origin: OriginSchema.optional() });

/** A Go module's release tag (`v1.2.3`, `v2.0.0-rc.1`, `api/v1.2.3`). */
const GO_TAG = /^(?:[A-Za-z0-9._-]+\/)*v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

/** A full git commit id (SHA-1, or SHA-256 for a repository in that format). */
const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** One `.info` answer: where it was read (the module cache's file, or a proxy URL) and its text. */
export interface InfoAnswer {
  source: string;
  /** null when there was none (no file, the proxy did not answer). */
  text: string | null;
}

/** The Origin of one `.info` text, or why it has none. */
function originOf(answer: InfoAnswer): {
  origin: z.output<typeof OriginSchema> | undefined;
  problem: string;
} {
  if (answer.text === null) return { origin: undefined, problem: `${answer.source}: no answer` };
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    return { origin: undefined, problem: `${answer.source}: not JSON` };
  }
  const info = ModuleInfoSchema.safeParse(json);
  if (!info.success) return { origin: undefined, problem: `${answer.source}: no Version` };
  return { origin: info.data.Origin, problem: `${answer.source}: no Origin` };
}

/**
 * The origin commit of a downloaded module version: from `go mod download -json`, else from the
 * first `.info` answer that names one (the module cache's file, then the proxy's own); null, with
 * a note saying where it looked, when none does.
 */
export function moduleOrigin(
  download: ModuleDownload,
  infos: readonly InfoAnswer[],
): { commit: string | null; ref: string | null; note: string | null } {
  const where = `${download.Path ?? 'the module'}@${download.Version ?? '?'}`;
  const looked: string[] = [];
  for (const [origin, problem] of [
    [download.Origin, '`go mod download -json`: no Origin'] as const,
    ...infos.map((answer) => {
      const o = originOf(answer);
      return [o.origin, o.problem] as const;
    }),
  ]) {
    const hash = origin?.Hash?.toLowerCase();
    if (hash && COMMIT.test(hash)) return { commit: hash, ref: origin?.Ref ?? null, note: null };
    looked.push(hash ? `origin hash "${origin?.Hash}" is not a commit id` : problem);
  }
  return { commit: null, ref: null, note: `${where}: the source commit is unknown (${looked.join('; ')})` };
}

/**
 * Where the proxies of GOPROXY (`https://proxy.golang.org,direct`) serve a version's `.info`:
 * `<proxy>/<escaped module>/@v/<escaped version>.info`, upper case escaped as `!` + lower case.
 * `direct` and `off` are no proxies, and a `file://` proxy is not asked (its files are go's own cache).
 */
export function proxyInfoUrls(goproxy: string, module: string, version: string): string[] {
  const escape = (p: string) => p.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
  return goproxy
    .split(/[,|]/)
    .map((p) => p.trim().replace(/\/+$/, ''))
    .filter((p) => /^https?:\/\//.test(p))
    .map((p) => `${p}/${escape(module)}/@v/${escape(version)}.info`);
}

/** Where a module version came from and what its build stamps, as build.ts's FetchedSource keeps it. */
export interface ModuleSource {
  /** The version without "v" (`1.2.6`, or a pseudo-version). */
  label: string;
  /** `<module>@<version>`. */
  origin: string;
  commit: string | null;
  /** What `git describe --long --always` prints at that commit (runc's main.gitCommit). */
  describe: string;
  /** `git describe --match 'v[0-9]*' --always` at a release: the tag (containerd's version.Version). */
  tag: string;
  /** Why the commit is unknown, for the build record; null when it is known. */
  note: string | null;
}

/** The source of a module-proxy build from `go mod download -json` and the `.info` answers. */
export function moduleSource(
  module: string,
  download: ModuleDownload,
  infos: readonly InfoAnswer[],
): ModuleSource {
  const version = download.Version!;
  const { commit, ref, note } = moduleOrigin(download, infos);
  // The proxy serves a release vX.Y.Z only from the tag vX.Y.Z; a pseudo-version names no tag.
  const isPseudo = /\d{14}-[0-9a-f]{12}$/.test(version);
  // The tag goes into -ldflags "-X …", which go splits at spaces: a Ref that names no Go module
  // tag (the proxy's answer comes from outside) is not taken.
  const refTag = ref?.startsWith('refs/tags/') ? ref.slice('refs/tags/'.length) : null;
  const tag = refTag !== null && GO_TAG.test(refTag) ? refTag : isPseudo ? null : version;
  return {
    label: version.replace(/^v/, ''),
    origin: `${module}@${version}`,
    commit,
    describe: commit ? describeCommit(tag, commit) : version,
    tag: version,
    note,
  };
}

/** The stamp values of a build of `source` (the VERSION file's version, or the tag). */
export function stampValues(
  source: Pick<ModuleSource, 'commit' | 'describe' | 'tag'>,
  opts: { version: string; toolchain: string; module: string },
): StampValues {
  return {
    version: opts.version,
    commit: source.describe,
    toolchain: opts.toolchain,
    tag: source.tag,
    revision: source.commit ?? '',
    module: opts.module,
  };
}

/**
 * Why a cached build must be made again, or null to reuse it: one recorded without a source
 * commit that the source now names was stamped without it (an empty Revision, a tag for the
 * commit), so its binary reports less than a fresh build of the same source.
 */
export function staleBuild(cached: { commit: string | null }, src: { commit: string | null }): string | null {
  return cached.commit === null && src.commit !== null
    ? `it was built without its source commit, which is now known (${src.commit})`
    : null;
}

/**
 * The git repository a module version was cut from (Origin.URL with VCS git): from `go mod
 * download -json`, else the first `.info` answer that names one; null, with where it looked.
 * Only URLs git can clone over the network or from a local path are taken.
 */
export function moduleOriginUrl(
  download: ModuleDownload,
  infos: readonly InfoAnswer[],
): { url: string | null; note: string | null } {
  const looked: string[] = [];
  const GO = '`go mod download -json`';
  for (const [origin, source, problem] of [
    [download.Origin, GO, `${GO}: no Origin`] as const,
    ...infos.map((answer) => {
      const o = originOf(answer);
      return [o.origin, answer.source, o.problem] as const;
    }),
  ]) {
    const url = origin?.URL;
    if (url && (origin?.VCS ?? 'git') === 'git' && /^(?:https?|git|ssh|file):\/\/\S+$/.test(url))
      return { url, note: null };
    looked.push(url ? `${source}: origin "${url}" is no git URL` : problem);
  }
  const where = `${download.Path ?? 'the module'}@${download.Version ?? '?'}`;
  return { url: null, note: `${where}: the source repository is unknown (${looked.join('; ')})` };
}
