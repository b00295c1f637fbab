// End to end with a known answer: a git repository of runc (a release's module source) with a
// short history, one commit of which makes `runc init` sleep 50 ms. `runtime-bench bisect` builds
// the candidates from that clone the way runc releases are built, measures them on a real
// containerd stack, and must name that commit. Heavy: run under `flock /tmp/rb-heavy.lock`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BisectReportSchema } from '@runtime-bench/schemas';
import { runCli } from '../support/cli.ts';
import { realStackUnavailable, testStackName } from '../support/host.ts';
import { stackDownLeavesNothing } from '../support/stack-gone.ts';

const STACK = testStackName('bisect');
const RUNC_VERSION = '1.3.6';
const MODULE = 'github.com/opencontainers/runc';

/** The module source from the Go module cache (downloaded through the module proxy when absent). */
function runcSource(): string | null {
  try {
    const out = execFileSync('go', ['mod', 'download', '-json', `${MODULE}@v${RUNC_VERSION}`], {
      encoding: 'utf8',
      cwd: '/',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
    });
    const dir = (JSON.parse(out) as { Dir?: string }).Dir;
    return dir && existsSync(join(dir, 'init.go')) ? dir : null;
  } catch {
    return null;
  }
}

const unavailable =
  realStackUnavailable() ??
  (existsSync('/usr/local/go/bin/go') || process.env.PATH?.includes('go') ? null : 'no go toolchain');
const source = unavailable ? null : runcSource();
const why =
  unavailable ?? (source ? null : `cannot get ${MODULE}@v${RUNC_VERSION} from the Go module cache or proxy`);
if (why) console.warn(`SKIPPED bisect end-to-end test: ${why}`);

const work = mkdtempSync(join(tmpdir(), 'rb-bisect-'));
const repo = join(work, 'runc');
const prefix = join(work, 'builds');
let planted = '';

function git(...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'bisect test',
      GIT_AUTHOR_EMAIL: 'bisect@example.invalid',
      GIT_COMMITTER_NAME: 'bisect test',
      GIT_COMMITTER_EMAIL: 'bisect@example.invalid',
    },
  }).trim();
}

/** A commit that changes only a file no build reads. */
function harmless(i: number): void {
  writeFileSync(join(repo, 'docs', 'bisect-test.md'), `change ${i}\n`, { flag: 'a' });
  git('add', '-A');
  git('commit', '-q', '-m', `docs: note ${i}`);
}

describe.skipIf(why !== null)('bisect: a planted delay in runc init, found in a local clone', () => {
  beforeAll(() => {
    cpSync(source!, repo, { recursive: true });
    execFileSync('chmod', ['-R', 'u+w', repo]); // the module cache is read-only
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', `runc ${RUNC_VERSION} module source`);
    git('tag', `v${RUNC_VERSION}`);
    // 1.3.7 (fake) three harmless commits later, 1.3.8 five more later, the delay in the 6th commit.
    for (let i = 1; i <= 8; i++) {
      if (i === 6) {
        const init = join(repo, 'init.go');
        const text = readFileSync(init, 'utf8')
          .replace('import (\n\t"os"\n', 'import (\n\t"os"\n\t"time"\n')
          .replace(
            '\t\tlibcontainer.Init()',
            '\t\ttime.Sleep(50 * time.Millisecond)\n\t\tlibcontainer.Init()',
          );
        expect(text).toContain('time.Sleep(50 * time.Millisecond)');
        writeFileSync(init, text);
        git('add', '-A');
        git('commit', '-q', '-m', 'init: wait 50 ms before libcontainer.Init');
        planted = git('rev-parse', 'HEAD');
      } else harmless(i);
      if (i === 3) git('tag', 'v1.3.7');
    }
    git('tag', 'v1.3.8');
  });

  afterAll(async () => {
    await stackDownLeavesNothing(STACK);
    rmSync(work, { recursive: true, force: true }); // the clone and five runc builds
  });

  test('names the planted commit and release, with every step in the report', async () => {
    const out = join(work, 'report.json');
    const md = join(work, 'summary.md');
    const r = await runCli([
      'bisect',
      '--component',
      'runc',
      '--good',
      RUNC_VERSION,
      '--bad',
      '1.3.8',
      '--benchmark',
      'operations.container.lifecycle',
      '--metric',
      'StartContainer',
      '--git-dir',
      repo,
      '--stack',
      STACK,
      '--prefix',
      prefix,
      '--rounds-per-look',
      '10',
      '--looks',
      '6',
      '--fix-host',
      '--out',
      out,
      '--markdown',
      md,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const report = BisectReportSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(report.outcome).toBe('found');
    expect(report.firstBadRelease).toBe('1.3.8');
    expect(report.lastGoodRelease).toBe('1.3.7');
    expect(report.firstBadCommit?.commit).toBe(planted);
    // 50 ms on a StartContainer of tens of ms: bad / good well above 1 at its lower bound.
    expect(report.effect!.lower).toBeGreaterThan(1);
    expect(report.steps[0]).toMatchObject({ kind: 'ends', verdict: 'differ' });
    // Every step's samples come from run results kept on disk.
    for (const s of report.steps) expect(s.runIds.length).toBeGreaterThan(0);
    expect(report.spent.builds).toBeGreaterThanOrEqual(4);
    expect(r.stdout).toContain(planted.slice(0, 12));
    expect(readFileSync(md, 'utf8')).toContain('### Bisection: runc 1.3.6 → 1.3.8');
  }, 3_600_000);
});
