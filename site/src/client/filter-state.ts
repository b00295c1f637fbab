// The filters (host class, CRI and its version, OCI runtime and its version) live in the URL
// query so that a filtered view can be shared; this module is the one place that reads and
// writes them. Each filter is a set: several values of one key may be chosen (?oci=runc&oci=crun).
export const FILTER_KEYS = ['host', 'cri', 'criv', 'oci', 'ociv'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type FilterState = Record<FilterKey, string[]>;

export function readFilter(search: string = location.search): FilterState {
  const q = new URLSearchParams(search);
  return Object.fromEntries(FILTER_KEYS.map((k) => [k, q.getAll(k).filter(Boolean)])) as FilterState;
}

export function writeFilter(state: FilterState): void {
  const q = new URLSearchParams(location.search);
  for (const k of FILTER_KEYS) {
    q.delete(k);
    for (const v of state[k]) q.append(k, v);
  }
  const s = q.toString();
  history.replaceState(null, '', `${location.pathname}${s ? `?${s}` : ''}${location.hash}`);
}

/** Whether an element tagged with data-host / data-cri / … passes the filter. */
export function matches(tags: Partial<Record<FilterKey, string | undefined>>, f: FilterState): boolean {
  return FILTER_KEYS.every((k) => f[k].length === 0 || tags[k] === undefined || f[k].includes(tags[k]!));
}
