// <rb-matrix>: sorting by any column (rows are sorted within their benchmark group) and the
// details of a cell on click or Enter, for touch screens where a hover title never shows.
class RbMatrix extends HTMLElement {
  connectedCallback(): void {
    const table = this.querySelector('table')!;
    const detail = this.querySelector<HTMLElement>('.cell-detail')!;
    table.addEventListener('click', (e) => {
      const target = e.target as HTMLElement;
      const button = target.closest<HTMLButtonElement>('button.sort');
      if (button) return this.sort(table, Number(button.dataset.col), button);
      const td = target.closest<HTMLElement>('td[data-detail]');
      if (td && !target.closest('a')) this.show(detail, td);
    });
    table.addEventListener('keydown', (e) => {
      const td = (e.target as HTMLElement).closest<HTMLElement>('td[data-detail]');
      if (td && e.key === 'Enter') this.show(detail, td);
    });
  }

  private show(detail: HTMLElement, td: HTMLElement): void {
    detail.textContent = td.dataset.detail ?? '';
    detail.hidden = false;
  }

  private sort(table: HTMLTableElement, col: number, button: HTMLButtonElement): void {
    const th = button.closest('th')!;
    const ascending = th.getAttribute('aria-sort') !== 'ascending';
    for (const h of Array.from(table.tHead!.rows[0]!.cells)) h.setAttribute('aria-sort', 'none');
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    const key = (tr: HTMLTableRowElement): number | string => {
      if (col === 0) return tr.dataset.name ?? '';
      return Number((tr.cells[col] as HTMLElement | undefined)?.dataset.sort ?? Number.MAX_SAFE_INTEGER);
    };
    for (const body of Array.from(table.tBodies)) {
      const rows = Array.from(body.rows).filter((r) => !r.classList.contains('family'));
      // Cells without a compared value (not run, failed, …) stay at the bottom either way.
      const missing = (k: number | string) => k === Number.MAX_SAFE_INTEGER;
      rows.sort((a, b) => {
        const ka = key(a);
        const kb = key(b);
        if (missing(ka) !== missing(kb)) return missing(ka) ? 1 : -1;
        const c = typeof ka === 'string' ? ka.localeCompare(kb as string) : ka - (kb as number);
        return ascending ? c : -c;
      });
      for (const r of rows) body.appendChild(r);
    }
  }
}

customElements.define('rb-matrix', RbMatrix);
