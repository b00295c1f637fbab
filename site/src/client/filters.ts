import { FILTER_KEYS, matches, readFilter, writeFilter, type FilterState } from './filter-state.ts';

/**
 * <rb-filters>: multi-select filters (a checkbox list per key). Without JavaScript it stays hidden
 * and every table shows everything; with it, elements tagged data-host / data-cri / data-criv /
 * data-oci / data-ociv that do not match are hidden, the URL query is updated, and charts hear an
 * "rb-filter" event.
 */
class RbFilters extends HTMLElement {
  connectedCallback(): void {
    const initial = readFilter();
    for (const box of Array.from(this.querySelectorAll<HTMLInputElement>('input[type="checkbox"]'))) {
      box.checked = initial[box.name as keyof FilterState]?.includes(box.value) ?? false;
      box.addEventListener('change', () => this.apply());
    }
    this.querySelector('button.clear')?.addEventListener('click', () => {
      for (const box of Array.from(this.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')))
        box.checked = false;
      this.apply();
    });
    this.hidden = false;
    this.apply();
  }

  private state(): FilterState {
    const pick = (k: string) =>
      Array.from(this.querySelectorAll<HTMLInputElement>(`input[name="${k}"]:checked`)).map((b) => b.value);
    return Object.fromEntries(FILTER_KEYS.map((k) => [k, pick(k)])) as FilterState;
  }

  private apply(): void {
    const f = this.state();
    writeFilter(f);
    for (const k of FILTER_KEYS) {
      const summary = this.querySelector<HTMLElement>(`details[data-key="${k}"] .chosen`);
      if (summary) summary.textContent = f[k].length === 0 ? 'all' : f[k].join(', ');
    }
    for (const el of Array.from(
      document.querySelectorAll<HTMLElement>('[data-host],[data-cri],[data-oci],[data-criv],[data-ociv]'),
    )) {
      if (el.tagName === 'RB-CHART' || el.closest('rb-filters')) continue;
      const d = el.dataset;
      el.hidden = !matches({ host: d.host, cri: d.cri, criv: d.criv, oci: d.oci, ociv: d.ociv }, f);
    }
    document.dispatchEvent(new CustomEvent<FilterState>('rb-filter', { detail: f }));
  }
}

customElements.define('rb-filters', RbFilters);
