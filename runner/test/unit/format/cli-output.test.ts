// Issue 15 "Output": ids and reasons come from files anyone can write. The real CLI, on real
// result files whose target ids carry terminal escape sequences and markup, must print neither
// raw: the terminal renderer shows control characters as visible escapes, the Markdown renderer
// turns markup into entities.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeResultFile } from '../../../src/results/io.ts';
import { night, syntheticRun } from '../compare/synthetic.ts';

const exec = promisify(execFile);
const CLI = new URL('../../../bin/runtime-bench.js', import.meta.url).pathname;

// An OSC that retitles the terminal, a "clear screen" CSI, and a one-byte C1 CSI.
const ESCAPES = 'evil\u001b]0;pwned\u0007\u001b[2J\u009b31m/runc';
const MARKUP = '</script><script>alert(1)</script>';
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-cli-output-'));
  for (const [name, seed] of [
    ['a.json', 1],
    ['b.json', 2],
  ] as const)
    await writeResultFile(
      join(dir, name),
      syntheticRun({
        seed,
        startedAt: night(seed),
        targets: [
          { id: ESCAPES, oci: 'runc', version: '1.1.5' },
          { id: MARKUP, oci: 'crun', version: '1.8.4' },
        ],
      }),
    );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('compare prints hostile target ids safely', { timeout: 240_000 }, () => {
  test('table: no control character reaches the terminal; the escapes are shown, not obeyed', async () => {
    const r = await cli(['compare', join(dir, 'a.json'), join(dir, 'b.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toContain('evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m/runc');
  });

  test('markdown: markup becomes entities, so a job summary shows it as text', async () => {
    const r = await cli(['compare', join(dir, 'a.json'), join(dir, 'b.json'), '--format', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('<script');
    expect(r.stdout).not.toContain('</script');
    expect(r.stdout).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(r.stdout).not.toMatch(RAW_CONTROL);
  });

  test('an error naming a hostile target id does not echo its escapes', async () => {
    const r = await cli([
      'compare',
      join(dir, 'a.json'),
      '--baseline-target',
      ESCAPES,
      '--target',
      'no-such-target',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toContain('\\x1b');
  });
});
