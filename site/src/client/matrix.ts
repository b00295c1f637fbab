// <rb-matrix>: sorting by any column (rows are sorted within their benchmark group), the details
// of a cell on click or Enter (touch screens never show a hover title), and rows recomputed from
// what is shown: when a filter hides columns, or the rows are shown "relative to" one column, the
// best, the ratios and the tests are computed again from the visible cells' raw samples
// (/data/matrix/<host>.json, the same row logic as the build: lib/matrix-row.ts, lib/cell-view.ts).
import { cellView } from '../lib/cell-view.ts';
import { matrixRowCells, type MatrixData } from '../lib/matrix-row.ts';
import { compareWithBest } from '../lib/significance.ts';

class RbMatrix extends HTMLElement {
  private data: Promise<MatrixData> | null = null;
  private recomputed = false;

  connectedCallback(): void {
    const table = this.querySelector('table')!;
    const detail = this.querySelector<HTMLElement>('.cell-detail')!;
    const relative = this.querySelector<HTMLSelectElement>('select.relative-to');
    if (relative) {
      relative.closest<HTMLElement>('label')!.hidden = false;
      relative.addEventListener('change', () => void this.recompute(table, relative));
    }
    document.addEventListener('rb-filter', () => void this.recompute(table, relative));
    // the filters may have run before this element did
    void this.recompute(table, relative);
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

  /** The visible columns' cells of every row, recomputed; nothing to do while all show and no reference is set. */
  private async recompute(table: HTMLTableElement, relative: HTMLSelectElement | null): Promise<void> {
    const heads = Array.from(table.tHead!.rows[0]!.cells).slice(1) as HTMLElement[];
    const visible = heads.flatMap((th, i) => (th.hidden ? [] : [i]));
    const referenceCombo = relative?.value ?? '';
    if (!this.recomputed && visible.length === heads.length && !referenceCombo) return;
    this.recomputed = true;
    this.data ??= fetch(this.dataset.cells!).then((r) => r.json() as Promise<MatrixData>);
    const data = await this.data;
    const refColumn = heads.findIndex((th) => th.dataset.combo === referenceCombo);
    const ref = refColumn >= 0 && visible.includes(refColumn) ? visible.indexOf(refColumn) : null;
    for (const tr of Array.from(table.querySelectorAll<HTMLTableRowElement>('tr[data-slug]'))) {
      const row = data.rows[tr.dataset.slug!];
      if (!row) continue;
      const found = visible.map((i) => row.cells[i] ?? undefined);
      const { cells } = matrixRowCells(
        found,
        row.direction,
        data.parameterSets,
        (samples, direction) => compareWithBest(samples, direction, ref),
        ref,
      );
      cells.forEach((cell, k) => {
        const td = tr.cells[1 + visible[k]!] as HTMLTableCellElement;
        const v = cellView(
          cell,
          row.unit,
          row.direction,
          data.columns[visible[k]!]!,
          row.label,
          ref !== null,
          found[k]?.origin,
        );
        // keep the classes the build's scoped styles add (astro-…), replace the rest
        const scoped = Array.from(td.classList).filter((c) => c.startsWith('astro-'));
        td.className = ['num', ...v.cls.split(' '), ...scoped].join(' ');
        td.style.setProperty('--heat', v.heat > 0 ? v.heat.toFixed(2) : '0');
        td.dataset.kind = v.kind;
        td.dataset.sort = String(v.sort);
        td.dataset.detail = v.details.join('\n');
        td.title = v.details.join('\n');
        const span = (cls: string, text: string) => {
          const el = document.createElement('span');
          el.className = cls;
          el.textContent = text;
          return el;
        };
        const parts = [span('median', v.text)];
        if (v.rel) parts.push(span('rel', ` ${v.rel}`));
        if (v.glyph) {
          const g = span('glyph', ` ${v.glyph}`);
          g.setAttribute('aria-hidden', 'true');
          parts.push(g);
        }
        td.replaceChildren(...parts);
      });
    }
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
