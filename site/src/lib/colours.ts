// One fixed colour per runtime family, everywhere on the site (Okabe & Ito's colour-blind-safe
// palette), and lighter shades of it for further versions or combinations of the same family.
const FAMILY: Record<string, string> = {
  runc: '#0072B2',
  crun: '#E69F00',
  runsc: '#009E73',
  gvisor: '#009E73',
  youki: '#CC79A7',
  kata: '#D55E00',
  'kata-runtime': '#D55E00',
};
const OTHERS = ['#56B4E9', '#000000', '#8C564B', '#7F7F7F'];

/** The base colour of a runtime family; unknown families get a stable colour from their name. */
export function familyColour(name: string): string {
  const known = FAMILY[name];
  if (known) return known;
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return OTHERS[h % OTHERS.length]!;
}

/** Shade `index` of `count` of a colour: 0 is the colour itself, later ones mixed towards white. */
export function shade(hex: string, index: number, count: number): string {
  if (index === 0 || count <= 1) return hex;
  const t = (index / count) * 0.6;
  const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const mixed = rgb.map((v) => Math.round(v + (255 - v) * t));
  return `#${mixed.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** Colours for a list of series by their OCI runtime family: one family colour, shades within it. */
export function seriesColours(families: readonly string[]): string[] {
  const seen = new Map<string, number>();
  const totals = new Map<string, number>();
  for (const f of families) totals.set(f, (totals.get(f) ?? 0) + 1);
  return families.map((f) => {
    const i = seen.get(f) ?? 0;
    seen.set(f, i + 1);
    return shade(familyColour(f), i, totals.get(f)!);
  });
}
