// Measures what a built page costs the browser: the gzip size of its HTML, and of every JavaScript
// module it loads (its <script src> and, transitively, their static imports), each counted once
// per page.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface PageJs {
  page: string;
  /** gzip bytes of the page's JavaScript */
  gzipBytes: number;
  /** gzip bytes of the page's HTML */
  htmlGzipBytes: number;
  modules: string[];
}

const SCRIPT_SRC = /<script\b[^>]*\bsrc="([^"]+)"/g;
const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc=)(?![^>]*type="application\/json")[^>]*>([\s\S]*?)<\/script>/g;
const IMPORTS = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+\.js)["']/g;

/** Every HTML page below outDir, relative paths. */
export function htmlPages(outDir: string): string[] {
  return readdirSync(outDir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.html'));
}

/** JavaScript measurement of all pages; `base` is the site's base path (default "/"). */
export function measurePages(outDir: string, base = '/'): PageJs[] {
  const gz = new Map<string, number>();
  const deps = new Map<string, string[]>();
  const moduleInfo = (urlPath: string): { size: number; imports: string[] } => {
    if (!gz.has(urlPath)) {
      const file = join(outDir, urlPath.slice(base.length));
      const text = readFileSync(file);
      gz.set(urlPath, gzipSync(text).length);
      const imports = [...text.toString('utf8').matchAll(IMPORTS)].map((m) =>
        posix.join(posix.dirname(urlPath), m[1]!),
      );
      deps.set(urlPath, imports);
    }
    return { size: gz.get(urlPath)!, imports: deps.get(urlPath)! };
  };
  return htmlPages(outDir).map((page) => {
    const html = readFileSync(join(outDir, page), 'utf8');
    const seen = new Set<string>();
    const queue = [...html.matchAll(SCRIPT_SRC)].map((m) => m[1]!).filter((src) => src.startsWith(base));
    let total = 0;
    while (queue.length > 0) {
      const src = queue.pop()!;
      if (seen.has(src)) continue;
      seen.add(src);
      const info = moduleInfo(src);
      total += info.size;
      queue.push(...info.imports);
    }
    for (const m of html.matchAll(INLINE_SCRIPT)) total += gzipSync(m[1]!).length;
    return {
      page: dirname(page) === '.' ? '/' : `/${dirname(page)}/`,
      gzipBytes: total,
      htmlGzipBytes: gzipSync(html).length,
      modules: [...seen],
    };
  });
}
