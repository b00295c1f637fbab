// <rb-compare>: compares any two runs (or targets) in the browser. It fetches the run list and
// the two published result files, runs the runner's compareRuns on them — the statistics of
// `runtime-bench compare`, not a copy — and renders the rows with the runner's HTML table
// renderer. The pair lives in the URL (?a=RUN&at=TARGET&b=RUN&bt=TARGET).
import { compareRuns } from '@runtime-bench/runner/compare-runs';
import { escapeHtml, formatTime, htmlTable } from '@runtime-bench/runner/format';
import type { RunResult } from '@runtime-bench/schemas';
import {
  apartRows,
  COMPARE_COLUMNS,
  COMPARE_OPTIONS,
  compareHeadline,
  compareRows,
  defaultPair,
  type CompareRunRef,
} from '../lib/views/compare.ts';

class RbCompare extends HTMLElement {
  private runs: CompareRunRef[] = [];

  async connectedCallback(): Promise<void> {
    const status = this.querySelector<HTMLElement>('.compare-status')!;
    try {
      const res = await fetch(this.dataset.index!);
      this.runs = ((await res.json()) as CompareRunRef[]).sort(
        (a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt),
      );
    } catch (e) {
      status.textContent = `Could not load the run list: ${String(e)}`;
      return;
    }
    const form = this.querySelector('form')!;
    const q = new URLSearchParams(location.search);
    const start = defaultPair(this.runs);
    for (const side of ['a', 'b'] as const) {
      const run = this.select(side);
      for (const r of this.runs) {
        const o = new Option(
          `${r.startedAt.slice(0, 16).replace('T', ' ')} · ${r.runId}${r.synthetic ? ' (synthetic)' : ''}`,
          r.runId,
        );
        run.add(o);
      }
      const wanted = q.get(side);
      if (wanted && this.runs.some((r) => r.runId === wanted)) run.value = wanted;
      else if (start) run.value = start[side];
      run.addEventListener('change', () => this.fillTargets(side, ''));
      this.fillTargets(side, q.get(`${side}t`) ?? '');
    }
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.compare(true);
    });
    status.textContent = `${this.runs.length} runs.`;
    if (q.get('a') && q.get('b')) await this.compare(false);
  }

  private select(name: string): HTMLSelectElement {
    return this.querySelector<HTMLSelectElement>(`select[name="${name}"]`)!;
  }

  private fillTargets(side: 'a' | 'b', wanted: string): void {
    const run = this.runs.find((r) => r.runId === this.select(side).value);
    const sel = this.select(`${side}t`);
    sel.length = 1;
    for (const [id, label] of run?.targets ?? []) sel.add(new Option(`${id} (${label})`, id));
    if (run?.targets.some(([id]) => id === wanted)) sel.value = wanted;
  }

  private async compare(push: boolean): Promise<void> {
    const status = this.querySelector<HTMLElement>('.compare-status')!;
    const out = this.querySelector<HTMLElement>('.compare-report')!;
    const pick = (side: 'a' | 'b') => ({
      ref: this.runs.find((r) => r.runId === this.select(side).value),
      target: this.select(`${side}t`).value,
    });
    const a = pick('a');
    const b = pick('b');
    if (!a.ref || !b.ref) return;
    if (push) {
      const q = new URLSearchParams({ a: a.ref.runId, b: b.ref.runId });
      if (a.target) q.set('at', a.target);
      if (b.target) q.set('bt', b.target);
      history.pushState(null, '', `?${q}`);
    }
    status.textContent = 'Comparing…';
    try {
      const load = async (file: string) =>
        (await (await fetch(`${this.dataset.base}data/${file}`)).json()) as RunResult;
      const [runA, runB] = await Promise.all([load(a.ref.file), load(b.ref.file)]);
      const report = compareRuns(
        { run: runA, label: formatTime(a.ref.startedAt), ...(a.target ? { target: a.target } : {}) },
        { run: runB, label: formatTime(b.ref.startedAt), ...(b.target ? { target: b.target } : {}) },
        COMPARE_OPTIONS,
      );
      // the matrix's rules: a limit a side did not enforce is shown, never compared
      const apart = apartRows(report, runA, runB);
      out.innerHTML =
        `<ul class="compare-headline">${compareHeadline(report, apart)
          .map((l) => `<li${l.startsWith('warning: ') ? ' class="warning"' : ''}>${escapeHtml(l)}</li>`)
          .join('')}</ul>` +
        `<div class="table-scroll sticky-scroll">${htmlTable([...COMPARE_COLUMNS], compareRows(report, apart), { className: 'compare' })}</div>`;
      status.textContent =
        report.rows.length === 0
          ? 'These two have no benchmark × target in common.'
          : `${report.rows.length} rows.`;
    } catch (e) {
      status.textContent = `Could not compare: ${String(e)}`;
    }
  }
}

customElements.define('rb-compare', RbCompare);
