// The entries under the install prefix (a release, a Debian package, a build) are a cache that
// must not lie. Each is made in a temp directory in the prefix (`.staging-<pid>-*`, `.build-<pid>-*`)
// and renamed into place only once complete and checked (digest of the download, `--version` of the
// binary); it is sealed before the rename with CONTENT.sha256 (sha256sum's format) over its
// binaries and records, and checked against it on every use: an entry whose files no longer match
// is refused, discarded and made again. A temp directory whose process is gone (a kill mid-build)
// is never used, and removed by the next install.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../errors.ts';
import { liveProcessStart } from '../util/proc-stat.ts';
import { digestFile } from './checksum.ts';

export const MANIFEST = 'CONTENT.sha256';

/** A temp directory in the prefix for this process: its pid says whether its maker still runs. */
export function tempEntryName(kind: 'build' | 'staging', pid = process.pid): string {
  return `.${kind}-${pid}-${randomBytes(4).toString('hex')}`;
}

/** The pid of a temp directory's maker, from its name; null for anything else in the prefix. */
export function tempEntryPid(name: string): number | null {
  const m = /^\.(?:build|staging)-(\d+)-[0-9a-f]+$/.exec(name);
  return m ? Number(m[1]) : null;
}

/** `<hex>  <path>` lines, sorted by path. */
export function formatManifest(digests: Readonly<Record<string, string>>): string {
  return Object.keys(digests)
    .sort()
    .map((path) => `${digests[path]}  ${path}\n`)
    .join('');
}

/** path → sha256 hex; null when the text is not a manifest (or lists nothing). */
export function parseManifest(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const m = /^([0-9a-f]{64}) {2}([^\0]+)$/.exec(line);
    if (!m || m[2]!.split('/').includes('..') || m[2]!.startsWith('/')) return null;
    out[m[2]!] = m[1]!;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** What is wrong with an entry, given its recorded digests and the ones its files have now (null: missing). */
export function entryProblem(
  recorded: Readonly<Record<string, string>> | null,
  actual: Readonly<Record<string, string | null>>,
): string | null {
  if (recorded === null) return `no readable ${MANIFEST} (cut short, or placed by an older runtime-bench)`;
  const bad = Object.keys(recorded)
    .sort()
    .flatMap((path) => {
      const now = actual[path];
      if (now === null || now === undefined) return [`${path} is missing`];
      return now === recorded[path] ? [] : [`${path} does not match its recorded sha256`];
    });
  return bad.length > 0 ? bad.join('; ') : null;
}

/** Writes the manifest over `paths` (relative to `dir`, links followed), through a temp file. */
export async function sealEntry(dir: string, paths: readonly string[]): Promise<void> {
  const digests: Record<string, string> = {};
  for (const path of paths) digests[path] = await digestFile(join(dir, path), 'sha256');
  await writeFile(join(dir, `${MANIFEST}.tmp`), formatManifest(digests));
  await rename(join(dir, `${MANIFEST}.tmp`), join(dir, MANIFEST));
}

/** Null when every file of the entry matches its manifest; else what is wrong. */
export async function checkEntry(dir: string): Promise<string | null> {
  const recorded = parseManifest(await readFile(join(dir, MANIFEST), 'utf8').catch(() => ''));
  const actual: Record<string, string | null> = {};
  for (const path of Object.keys(recorded ?? {}))
    actual[path] = await digestFile(join(dir, path), 'sha256').catch(() => null);
  return entryProblem(recorded, actual);
}

/**
 * An entry that is there and intact is used (true); one that fails its check is renamed aside
 * (so it disappears at once, whatever happens next), removed, and logged (false: make it again).
 */
export async function usableEntry(
  dir: string,
  prefix: string,
  log: (line: string) => void,
): Promise<boolean> {
  const problem = await checkEntry(dir);
  if (problem === null) return true;
  await discardEntry(dir, prefix, problem, log);
  return false;
}

/** Removes a cache entry that must not be used, with a log line saying why. */
export async function discardEntry(
  dir: string,
  prefix: string,
  why: string,
  log: (line: string) => void,
): Promise<void> {
  log(`${dir}: refused: ${why}; removing it and making it again`);
  // Renamed aside into the prefix first: gone at once, and a kill before the rm leaves only a
  // temp directory that the next install removes.
  const aside = join(prefix, tempEntryName('staging'));
  await rename(dir, aside);
  await rm(aside, { recursive: true, force: true });
}

/** Removes the temp directories in `prefix` whose process is gone; a live one is someone's work. */
export async function removeAbandonedTemps(
  prefix: string,
  log: (line: string) => void,
  liveStart: (pid: number) => Promise<number | null> = liveProcessStart,
): Promise<string[]> {
  const names = await readdir(prefix).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const pid = tempEntryPid(name);
    if (pid === null || pid === process.pid || (await liveStart(pid)) !== null) continue;
    try {
      await rm(join(prefix, name), { recursive: true, force: true });
      removed.push(name);
      log(
        `${join(prefix, name)}: left by pid ${pid}, which is gone (killed mid-install?): removed, never used`,
      );
    } catch (error) {
      log(`warning: could not remove ${join(prefix, name)}: ${errorMessage(error)}`);
    }
  }
  return removed;
}
