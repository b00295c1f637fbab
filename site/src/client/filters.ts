import { FILTER_KEYS, matches, readFilter, writeFilter, type FilterState } from './filter-state.ts';

/**
 * <rb-filters>: the host class / CRI / OCI selects. Without JavaScript it stays hidden and every
 * table shows everything; with it, elements tagged data-host/data-cri/data-oci that do not match
 * are hidden, the URL query is updated, and charts hear an "rb-filter" event.
 */
class RbFilters extends HTMLElement {
  connectedCallback(): void {
    const selects = FILTER_KEYS.map((k) => this.querySelector<HTMLSelectElement>(`select[name="${k}"]`));
    const initial = readFilter();
    selects.forEach((s, i) => {
      const k = FILTER_KEYS[i]!;
      if (s && Array.from(s.options).some((o) => o.value === initial[k])) s.value = initial[k];
      s?.addEventListener('change', () => this.apply());
    });
    this.hidden = false;
    this.apply();
  }

  private state(): FilterState {
    const get = (k: string) => this.querySelector<HTMLSelectElement>(`select[name="${k}"]`)?.value ?? '';
    return { host: get('host'), cri: get('cri'), oci: get('oci') };
  }

  private apply(): void {
    const f = this.state();
    writeFilter(f);
    for (const el of Array.from(
      document.querySelectorAll<HTMLElement>('[data-host],[data-cri],[data-oci]'),
    )) {
      if (el.tagName === 'RB-CHART') continue;
      el.hidden = !matches({ host: el.dataset.host, cri: el.dataset.cri, oci: el.dataset.oci }, f);
    }
    document.dispatchEvent(new CustomEvent<FilterState>('rb-filter', { detail: f }));
  }
}

customElements.define('rb-filters', RbFilters);
