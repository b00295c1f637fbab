// False-positive rate of the regression gate on repeated runs of ONE unchanged configuration:
// every flag is then a false alarm. Runs `check` leave-one-out over a directory of results.
//
//   node runner/bench/false-positive-rate.ts DIR [--mode loo|rolling] [--window K]
//        [--threshold PERCENT] [--alpha P] [--json]
//
// loo (default): each run is checked against the K runs nearest in time among all the others
//   (before or after it), so every run of a short series gets a full baseline.
// rolling: each run is checked as the nightly gate would, against the K runs before it, with
//   "ongoing" tracking; the first runs have too little baseline and are not counted.
import { parseArgs } from 'node:util';
import { createGateReplay, runGate, type GateReport } from '../src/compare/index.ts';
import { readHistoryDir } from '../src/history/index.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mode: { type: 'string', default: 'loo' },
    window: { type: 'string', default: '10' },
    threshold: { type: 'string', default: '5' },
    alpha: { type: 'string', default: '0.05' },
    json: { type: 'boolean', default: false },
  },
});
const dir = positionals[0];
if (!dir || (values.mode !== 'loo' && values.mode !== 'rolling')) {
  console.error(
    'usage: false-positive-rate.ts DIR [--mode loo|rolling] [--window K] [--threshold PERCENT] [--alpha P] [--json]',
  );
  process.exit(2);
}
const options = {
  window: Number(values.window),
  threshold: Number(values.threshold) / 100,
  alpha: Number(values.alpha),
};

const history = await readHistoryDir(dir);
const entries = history.entries;
const replay = createGateReplay(entries, { ...options, annotations: history.annotations });
const reports: GateReport[] = entries.map((entry) =>
  values.mode === 'loo'
    ? runGate(
        entry,
        entries.filter((e) => e !== entry),
        { ...options, annotations: history.annotations, scope: 'nearest' },
      )
    : replay.report(entry),
);

const perRun = reports.map((r) => {
  const tested = r.rows.filter((row) => row.pValue !== null || row.kind === 'status');
  const flags = r.rows.filter(
    (row) =>
      row.verdict === 'regression' || row.verdict === 'ongoing regression' || row.verdict === 'improvement',
  );
  return {
    runId: r.current.runId,
    file: r.current.label,
    tests: tested.length,
    alarms: r.counts.regression,
    flags: flags.map((row) => ({
      benchmark: row.benchmark,
      target: row.target,
      what: row.kind === 'metric' ? row.metric : row.kind,
      verdict: row.verdict,
      change: row.kind === 'metric' ? row.change : null,
      adjustedP: row.adjustedP,
    })),
  };
});
const tests = perRun.reduce((s, r) => s + r.tests, 0);
const flagged = perRun.reduce((s, r) => s + r.flags.length, 0);
const alarms = perRun.reduce((s, r) => s + r.alarms, 0);
const checkedRuns = perRun.filter((r) => r.tests > 0);
const summary = {
  dir,
  mode: values.mode,
  options,
  runs: entries.length,
  checkedRuns: checkedRuns.length,
  tests,
  /** Rows flagged in either direction (regression, ongoing, improvement) per tested row. */
  flagged,
  falsePositiveRate: tests === 0 ? null : flagged / tests,
  /** New regression alerts, the ones that would fail a nightly job. */
  alarms,
  runsWithAlarm: checkedRuns.filter((r) => r.alarms > 0).length,
  alarmRatePerRun:
    checkedRuns.length === 0 ? null : checkedRuns.filter((r) => r.alarms > 0).length / checkedRuns.length,
  perRun,
};

if (values.json) console.log(JSON.stringify(summary, null, 2));
else {
  for (const r of perRun)
    console.log(
      `${r.runId}  ${r.tests} tests  ${r.flags.length ? r.flags.map((f) => `${f.target} ${f.what}: ${f.verdict}`).join('; ') : 'nothing flagged'}`,
    );
  const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(1)} %`);
  console.log(
    `\n${summary.mode}: ${flagged} of ${tests} tests flagged (false-positive rate ${pct(summary.falsePositiveRate)}); ` +
      `${summary.runsWithAlarm} of ${summary.checkedRuns} checked runs would raise an alarm (${pct(summary.alarmRatePerRun)})`,
  );
}
