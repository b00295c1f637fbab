// The one place where pages get their data: the result files of the data directory, loaded and
// validated once per build and shared by every page (lib/site-data.ts).
import { prepareSiteData, type SiteData } from './lib/site-data.ts';

export type { SiteData };

/** Every page's data; an invalid result file rejects, which fails the build naming it. */
export function siteData(): Promise<SiteData> {
  return prepareSiteData(__RB_DATA_DIR__, __RB_LOAD__);
}

/** A link inside the site, below the configured base path. */
export function href(path: string): string {
  const base = import.meta.env.BASE_URL.replace(/\/$/, '');
  return `${base}/${path.replace(/^\//, '')}`;
}
