// Hostile entries in a data directory — links that loop, dangle, leave the directory or point at
// /etc/passwd, a FIFO named *.json — and files that are not ours passed by name: the real CLI must
// answer with the entry named and exit 2, never hang, follow a link out, or echo a file's content.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../support/cli.ts';

const REAL_DIR = join(import.meta.dirname, '../../../../data/runs/2026/11/21');
const REAL = join(REAL_DIR, '20261121T085232Z-f6360a57.json');
const OTHER = join(REAL_DIR, '20261121T085757Z-60016992.json');
/** The first line of /etc/passwd: what must never appear in our output. */
const PASSWD_LINE = readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;
const noTrace = /\n\s+at .*:\d+:\d+\)?\n/;

describe('data verify --dir refuses entries that are not regular files inside the directory', () => {
  const root = mkdtempSync(join(tmpdir(), 'rb-hostile-dir-'));
  const day = join(root, 'data', 'runs', '2026', '11', '21');
  mkdirSync(day, { recursive: true });
  copyFileSync(REAL, join(day, '20261121T085232Z-f6360a57.json'));
  symlinkSync('loop.json', join(day, 'loop.json'));
  symlinkSync(join(root, 'nowhere.json'), join(day, 'dangling.json'));
  symlinkSync('/etc/passwd', join(day, 'passwd.json'));
  execFileSync('mkfifo', [join(day, 'fifo.json')]);
  // A valid result outside the data directory, reachable only through a linked directory.
  const outside = join(root, 'outside', '22');
  mkdirSync(outside, { recursive: true });
  copyFileSync(OTHER, join(outside, '20261121T085757Z-60016992.json'));
  symlinkSync(outside, join(root, 'data', 'runs', '2026', '11', '22'));
  const refused = ['loop.json', 'dangling.json', 'passwd.json', 'fifo.json'].map((n) => join(day, n));
  refused.push(join(root, 'data', 'runs', '2026', '11', '22'));

  test('each entry is named, none is followed or opened, the one real file is valid', async () => {
    const r = await runCli(['data', 'verify', '--dir', join(root, 'data')]);
    expect(r.code).toBe(2);
    for (const file of refused)
      expect(r.stdout).toMatch(new RegExp(`INVALID  ${file}: is a (symbolic link|FIFO)`));
    expect(r.stdout).toContain(`${join(day, 'fifo.json')}: is a FIFO, not a regular file`);
    expect(r.stdout).toContain('6 file(s), 1 valid, 5 invalid');
    expect(r.stderr).toMatch(/^hint: /m);
    expect(r.stdout + r.stderr).not.toContain(PASSWD_LINE);
    expect(r.stdout + r.stderr).not.toMatch(noTrace);
  }, 60_000);

  test('a runs/ that is itself a link is not followed out of the data directory', async () => {
    const linked = mkdtempSync(join(tmpdir(), 'rb-linked-runs-'));
    symlinkSync(join(root, 'outside'), join(linked, 'runs'));
    const r = await runCli(['data', 'verify', '--dir', linked]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`INVALID  ${join(linked, 'runs')}: is a symbolic link`);
    expect(r.stdout).toContain('1 file(s), 0 valid, 1 invalid');
  }, 60_000);

  test('check --history reads the directory by the same rules', async () => {
    const r = await runCli(['check', '--history', join(root, 'data', 'runs'), '--current', REAL]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('5 problem(s) in history');
    expect(r.stderr).toContain(`${join(day, 'fifo.json')}: is a FIFO`);
    expect(r.stdout + r.stderr).not.toContain(PASSWD_LINE);
    expect(r.stdout + r.stderr).not.toMatch(noTrace);
  }, 60_000);
});

describe('a file that is not a result, passed by name, is refused without echoing it', () => {
  test.each([
    [
      'compare',
      ['compare', '/etc/passwd'],
      '/etc/passwd: not valid JSON (it does not start with "{" (line 1, column 1))',
    ],
    [
      'check --annotations',
      ['check', '--history', REAL_DIR, '--current', REAL, '--annotations', '/etc/passwd'],
      '/etc/passwd: cannot parse JSON (it does not start with "{" (line 1, column 1))',
    ],
  ])(
    '%s /etc/passwd',
    async (_what, args, expected) => {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(expected);
      expect(r.stderr).toMatch(/^hint: /m);
      expect(r.stdout + r.stderr).not.toContain(PASSWD_LINE);
      expect(r.stdout + r.stderr).not.toMatch(noTrace);
    },
    60_000,
  );
});
