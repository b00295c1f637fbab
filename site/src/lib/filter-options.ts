// The options of the filter bar, computed once per index: every page with filters shows the same
// ones, and walking all observations per page would cost seconds in a 10 000-file build.
import type { SiteIndex } from './site-index.ts';
import { compareVersions } from './versions.ts';

export interface FilterGroup {
  key: string;
  title: string;
  options: { value: string; label: string }[];
}

const cache = new WeakMap<SiteIndex, FilterGroup[]>();

export function filterGroups(index: SiteIndex): FilterGroup[] {
  const cached = cache.get(index);
  if (cached) return cached;
  const versions = (kind: 'cri' | 'oci') => {
    const seen = new Map<string, [string, string]>();
    for (const o of index.runTargets) {
      const name = kind === 'cri' ? o.criName : o.ociName;
      const version = kind === 'cri' ? o.criVersion : o.ociVersion;
      seen.set(`${name} ${version}`, [name, version]);
    }
    return [...seen.entries()]
      .sort((a, b) => a[1][0].localeCompare(b[1][0]) || compareVersions(a[1][1], b[1][1]))
      .map(([v]) => ({ value: v, label: v }));
  };
  const groups: FilterGroup[] = [
    {
      key: 'host',
      title: 'Host class',
      options: index.hostClasses.map((h) => ({
        value: h.id,
        label: `${h.label}${h.synthetic ? ' (synthetic)' : ''}`,
      })),
    },
    { key: 'cri', title: 'CRI', options: index.criNames.map((c) => ({ value: c, label: c })) },
    { key: 'criv', title: 'CRI version', options: versions('cri') },
    { key: 'oci', title: 'OCI runtime', options: index.ociNames.map((o) => ({ value: o, label: o })) },
    { key: 'ociv', title: 'OCI version', options: versions('oci') },
  ];
  cache.set(index, groups);
  return groups;
}
