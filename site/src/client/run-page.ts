// <rb-run>: the run page. Reads the run id from ?id=, fetches the run's published result file and
// renders it with lib/run-page.ts. The file is found at its conventional path (the run id starts
// with its UTC date); a data directory laid out otherwise is looked up in /data/index.json.
import type { RunResult } from '@runtime-bench/schemas';
import type { CompareRunRef } from '../lib/views/compare.ts';
import { conventionalRunFile, RUN_ID, runPageHtml } from '../lib/run-page.ts';

class RbRun extends HTMLElement {
  async connectedCallback(): Promise<void> {
    const status = this.querySelector<HTMLElement>('.run-status')!;
    const base = this.dataset.base!;
    const link = (path: string) => `${base}${path.replace(/^\//, '')}`;
    const id = new URLSearchParams(location.search).get('id') ?? '';
    if (!RUN_ID.test(id)) {
      status.textContent = id
        ? `"${id}" is not a run id (a run id looks like 20261121T080000Z-0123abcd). Pick a run on the Runs page.`
        : 'No run given: open a run from the Runs page (the address ends in ?id=<run id>).';
      return;
    }
    try {
      let file = conventionalRunFile(id);
      let res = await fetch(link(`data/${file}`));
      if (res.status === 404) {
        const refs = (await (await fetch(this.dataset.index!)).json()) as CompareRunRef[];
        const ref = refs.find((r) => r.runId === id);
        if (!ref) {
          status.textContent = `No run ${id} in this site's data. Pick a run on the Runs page.`;
          return;
        }
        file = ref.file;
        res = await fetch(link(`data/${file}`));
      }
      if (!res.ok) throw new Error(`HTTP ${res.status} for data/${file}`);
      const run = (await res.json()) as RunResult;
      document.title = `Run ${run.runId} · runtime-bench`;
      document.querySelector('main h1')?.replaceChildren(`Run ${run.runId}`);
      for (const a of document.querySelectorAll<HTMLAnchorElement>('a.run-json'))
        a.href = link(`data/${file}`);
      this.querySelector('.run-body')!.innerHTML = runPageHtml(run, file, link);
      status.remove();
    } catch (e) {
      status.textContent = `Could not load run ${id}: ${String(e)}`;
    }
  }
}

customElements.define('rb-run', RbRun);
