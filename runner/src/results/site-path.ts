// Where the site (site/src/pages) puts the pages a result or report is linked to: a benchmark's
// metric at benchmark/<benchmark>/<metric slug>/ (pages/benchmark/[...slug].astro) and a
// bisection report at bisect/<id>/ (pages/bisect/[id].astro). The site's index builder names its
// pages with these functions and the action links to them with the same ones, so a job summary
// or an alert issue never points at a page the site does not build. Browser-safe, as run-path.ts.

/** A URL- and id-safe form of a label: lower-case letters, digits, dots and single dashes. */
export function slugify(text: string): string {
  const s = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'x';
}

/**
 * The slug of a metric's page, "operations.container.lifecycle/startcontainer". Two metrics of one
 * benchmark whose names slug alike (the same name in two units) are told apart by the unit: the
 * first in the site's order keeps the plain slug, a later one gets "-<unit>" (`taken` holds the
 * slugs given so far; the caller adds the returned one).
 */
export function metricSlug(
  benchmark: string,
  metric: string,
  unit: string,
  taken: ReadonlySet<string> = new Set(),
): string {
  const slug = `${benchmark}/${slugify(metric)}`;
  return taken.has(slug) ? `${slug}-${slugify(unit)}` : slug;
}

/** The path of a metric's page below the site's base, "benchmark/<benchmark>/<metric slug>/". */
export function metricPagePath(benchmark: string, metric: string, unit: string): string {
  return `benchmark/${metricSlug(benchmark, metric, unit)}/`;
}

/** The path of a bisection report's page below the site's base (its id: bisection-path.ts bisectionId). */
export function bisectionPagePath(id: string): string {
  return `bisect/${encodeURIComponent(id)}/`;
}

/**
 * The absolute URL of a page: the site's address as deployed (with its base path, e.g.
 * https://org.github.io/runtime-bench) and a page path of this module. Throws a TypeError for an
 * address that is not an http(s) URL.
 */
export function sitePageUrl(siteUrl: string, path: string): string {
  const base = new URL(siteUrl.endsWith('/') ? siteUrl : `${siteUrl}/`);
  if (base.protocol !== 'https:' && base.protocol !== 'http:')
    throw new TypeError(`not an http(s) address: ${siteUrl}`);
  base.search = '';
  base.hash = '';
  return new URL(path, base).href;
}
