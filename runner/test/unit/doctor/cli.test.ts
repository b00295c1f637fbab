// `runtime-bench doctor` on this very host: whatever the host is, the exit code agrees with the
// findings it prints, and every needed binary is looked at.
import { describe, expect, test } from 'vitest';
import { runCli } from '../../support/cli.ts';
import { NEEDED_BINARIES, type Finding } from '../../../src/doctor/checks.ts';
import { EXIT } from '../../../src/exit-codes.ts';

describe('doctor on this host', { timeout: 60_000 }, () => {
  test('--json: a finding per check; exit 0 exactly when none fails, else the documented code', async () => {
    const r = await runCli(['doctor', '--json']);
    const report = JSON.parse(r.stdout) as { ready: boolean; findings: Finding[] };
    const failed = report.findings.filter((f) => f.level === 'fail');
    expect(report.ready).toBe(failed.length === 0);
    expect(r.code).toBe(failed.length === 0 ? EXIT.ok.code : EXIT.hostNotReady.code);
    for (const b of NEEDED_BINARIES) expect(report.findings.map((f) => f.check)).toContain(b.name);
    for (const check of ['kernel', 'cgroups', 'CNI plugins', 'other runtimes', 'CPU frequency', 'load'])
      expect(report.findings.map((f) => f.check)).toContain(check);
    for (const f of report.findings.filter((x) => x.level !== 'ok')) expect(f.fix, f.check).toBeTruthy();
  });

  test('the table: one line per finding and the verdict', async () => {
    const r = await runCli(['doctor']);
    expect(r.stdout).toMatch(/^(OK|WARN|FAIL)\s+kernel\s+\S/m);
    expect(r.stdout).toMatch(/\n(ready|NOT ready): \d+ fail, \d+ warn\n$/);
  });
});
