// The install prefix's cache entries: sealed with the sha256 of their files, checked on use; temp
// directories of a killed install are never entries and are removed once their process is gone.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  MANIFEST,
  checkEntry,
  entryProblem,
  formatManifest,
  parseManifest,
  removeAbandonedTemps,
  sealEntry,
  tempEntryName,
  tempEntryPid,
  usableEntry,
} from '../../../src/install/cache-entry.ts';

const sha256 = (b: string) => createHash('sha256').update(b).digest('hex');

let prefix: string;
beforeEach(async () => {
  prefix = await mkdtemp(join(tmpdir(), 'rb-cache-'));
});
afterEach(async () => {
  await rm(prefix, { recursive: true, force: true });
});

describe('manifest (pure)', () => {
  test('sha256sum lines round-trip, sorted by path', () => {
    const digests = { 'bin/runc': sha256('b'), 'BUILD.json': sha256('a') };
    const text = formatManifest(digests);
    expect(text).toBe(`${sha256('a')}  BUILD.json\n${sha256('b')}  bin/runc\n`);
    expect(parseManifest(text)).toEqual(digests);
  });

  test('anything else is no manifest: empty, a short digest, a path out of the entry', () => {
    for (const text of [
      '',
      'garbage\n',
      `${sha256('a').slice(1)}  bin/x\n`,
      `${sha256('a')}  ../x\n`,
      `${sha256('a')}  /etc/x\n`,
    ])
      expect(parseManifest(text)).toBeNull();
  });

  test('what is wrong: no manifest; a missing file; a changed one; nothing', () => {
    const recorded = { a: sha256('a'), b: sha256('b') };
    expect(entryProblem(null, {})).toContain(`no readable ${MANIFEST}`);
    expect(entryProblem(recorded, { a: sha256('a'), b: null })).toBe('b is missing');
    expect(entryProblem(recorded, { a: sha256('x'), b: sha256('b') })).toBe(
      'a does not match its recorded sha256',
    );
    expect(entryProblem(recorded, { a: sha256('a'), b: sha256('b') })).toBeNull();
  });

  test("a temp directory's name carries its maker's pid; entries' names do not", () => {
    expect(tempEntryPid(tempEntryName('build', 4242))).toBe(4242);
    expect(tempEntryPid(tempEntryName('staging', 7))).toBe(7);
    for (const name of ['runc', '1.2.3', '.build-abc', '.staging-12-xyz!', '.build-12-'])
      expect(tempEntryPid(name)).toBeNull();
  });
});

/** A complete entry: a binary under root/, a bin/ link to it, a record. */
async function entry(dir: string): Promise<void> {
  await mkdir(join(dir, 'root', 'usr', 'sbin'), { recursive: true });
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'root', 'usr', 'sbin', 'runc'), '#!/bin/sh\necho runc version 1.2.3\n');
  await symlink('../root/usr/sbin/runc', join(dir, 'bin', 'runc'));
  await writeFile(join(dir, 'SOURCE'), 'https://example.invalid/runc.amd64\n');
  await sealEntry(dir, ['SOURCE', 'root/usr/sbin/runc']);
}

describe('sealed entries on a real filesystem', () => {
  test('the seal lists the digests of the files as they are; an intact entry is used as is', async () => {
    const dir = join(prefix, 'runc', '1.2.3');
    await entry(dir);
    expect(parseManifest(await readFile(join(dir, MANIFEST), 'utf8'))).toEqual({
      SOURCE: sha256('https://example.invalid/runc.amd64\n'),
      'root/usr/sbin/runc': sha256('#!/bin/sh\necho runc version 1.2.3\n'),
    });
    const log: string[] = [];
    expect(await usableEntry(dir, prefix, log.push.bind(log))).toBe(true);
    expect(log).toEqual([]);
  });

  test('a truncated binary is detected on use: refused with a log line, removed, nothing left aside', async () => {
    const dir = join(prefix, 'runc', '1.2.3');
    await entry(dir);
    await truncate(join(dir, 'root', 'usr', 'sbin', 'runc'), 5);
    expect(await checkEntry(dir)).toBe('root/usr/sbin/runc does not match its recorded sha256');
    const log: string[] = [];
    expect(await usableEntry(dir, prefix, log.push.bind(log))).toBe(false);
    expect(log).toEqual([
      `${dir}: refused: root/usr/sbin/runc does not match its recorded sha256; removing it and making it again`,
    ]);
    expect(await readdir(prefix)).toEqual(['runc']);
    expect(await readdir(join(prefix, 'runc'))).toEqual([]);
  });

  test('an entry without its seal (cut short, or older) is refused too', async () => {
    const dir = join(prefix, 'runc', '1.2.3');
    await entry(dir);
    await rm(join(dir, MANIFEST));
    expect(await checkEntry(dir)).toContain(`no readable ${MANIFEST}`);
  });
});

describe('temp directories a kill left', () => {
  test("one whose process is gone is removed (logged); a live one, this process's, and entries stay", async () => {
    const dead = tempEntryName('staging', 999_999_999);
    const deadBuild = tempEntryName('build', 999_999_998);
    const live = tempEntryName('build', 1);
    const own = tempEntryName('build');
    // Half-written: a download cut short inside the staging of a killed install.
    await mkdir(join(prefix, dead, 'runc-1.2.3', '.downloads'), { recursive: true });
    await writeFile(join(prefix, dead, 'runc-1.2.3', '.downloads', 'runc.amd64'), '#!/bin/sh\necho ru');
    for (const name of [deadBuild, live, own, 'runc']) await mkdir(join(prefix, name));
    const log: string[] = [];
    const liveStart = (pid: number) => Promise.resolve(pid === 1 ? 42 : null);
    const removed = await removeAbandonedTemps(prefix, log.push.bind(log), liveStart);
    expect(removed.sort()).toEqual([deadBuild, dead].sort());
    expect((await readdir(prefix)).sort()).toEqual([live, own, 'runc'].sort());
    expect(log.sort()).toEqual(
      [
        `${join(prefix, dead)}: left by pid 999999999, which is gone (killed mid-install?): removed, never used`,
        `${join(prefix, deadBuild)}: left by pid 999999998, which is gone (killed mid-install?): removed, never used`,
      ].sort(),
    );
  });

  test('a prefix that does not exist yet has nothing to clean', async () => {
    expect(await removeAbandonedTemps(join(prefix, 'none'), () => undefined)).toEqual([]);
  });
});
