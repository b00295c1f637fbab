// The filters (host class, CRI, OCI runtime) live in the URL query so that a filtered view can be
// shared; this module is the one place that reads and writes them.
export interface FilterState {
  host: string;
  cri: string;
  oci: string;
}

export const FILTER_KEYS = ['host', 'cri', 'oci'] as const;

export function readFilter(search: string = location.search): FilterState {
  const q = new URLSearchParams(search);
  return { host: q.get('host') ?? '', cri: q.get('cri') ?? '', oci: q.get('oci') ?? '' };
}

export function writeFilter(state: FilterState): void {
  const q = new URLSearchParams(location.search);
  for (const k of FILTER_KEYS) {
    if (state[k]) q.set(k, state[k]);
    else q.delete(k);
  }
  const s = q.toString();
  history.replaceState(null, '', `${location.pathname}${s ? `?${s}` : ''}${location.hash}`);
}

/** Whether an element tagged with data-host / data-cri / data-oci passes the filter. */
export function matches(tags: { host?: string; cri?: string; oci?: string }, f: FilterState): boolean {
  return FILTER_KEYS.every((k) => !f[k] || tags[k] === undefined || tags[k] === f[k]);
}
