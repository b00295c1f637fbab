// The relative links of a Markdown page and the anchors its headings give, as GitHub renders
// them: the docs test (test/unit/docs/links.test.ts) checks that every relative link resolves.
// Pure: text in, links and slugs out; reading the files is the test's business.
import GithubSlugger from 'github-slugger';

export interface MarkdownLink {
  /** 1-based line of the link in its page. */
  line: number;
  /** The link target as written, e.g. `../data/README.md#bisection-reports`. */
  target: string;
  /** The path part, '' for a link to an anchor of the same page. */
  path: string;
  /** The anchor without '#', or null. */
  anchor: string | null;
}

const FENCE = /^\s{0,3}(```|~~~)/;

/** The page's lines outside fenced code blocks (the others replaced by ''), so numbering holds. */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const m = FENCE.exec(line);
    if (m) {
      if (fence === null) fence = m[1]!;
      else if (m[1] === fence) fence = null;
      return '';
    }
    return fence === null ? line : '';
  });
}

/** A line without its inline code spans (`…`, ``…``): a link inside code is not a link. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, '');
}

/** Whether a target leaves the repository by a scheme (https:, mailto:, …). */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/** Every relative inline link `[text](target)` (and image `![alt](target)`) of a page. */
export function relativeLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseLines(text).forEach((raw, i) => {
    // [text](target "title"): the text may hold brackets of inline code, already removed.
    for (const m of withoutCodeSpans(raw).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (isExternal(target)) continue;
      const hash = target.indexOf('#');
      links.push({
        line: i + 1,
        target,
        path: hash < 0 ? target : target.slice(0, hash),
        anchor: hash < 0 ? null : decodeURIComponent(target.slice(hash + 1)),
      });
    }
  });
  return links;
}

/** A heading's text as GitHub renders it before slugging: no code ticks, links as their text, no emphasis marks. */
function renderedText(heading: string): string {
  return heading
    .replace(/`+/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|\*)/g, '')
    .trim();
}

/** The anchors GitHub gives a page's headings (ATX `#` headings outside code), duplicates numbered. */
export function headingSlugs(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const slugs = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+\s*)?$/.exec(line);
    if (m) slugs.add(slugger.slug(renderedText(m[1]!)));
  }
  return slugs;
}

export interface BrokenLink extends MarkdownLink {
  /** The page holding the link, relative to the repository root. */
  page: string;
  reason: string;
}

/**
 * The links of `pages` (repository-relative path → text) that do not resolve: a path that names
 * nothing (`exists` says, for a repository-relative path), or an anchor that no heading of the
 * Markdown page it points into gives. Paths resolve against the page's directory, or the
 * repository root when they start with '/', as on GitHub.
 */
export function brokenLinks(
  pages: ReadonlyMap<string, string>,
  exists: (repoPath: string) => boolean,
  readPage: (repoPath: string) => string,
): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const slugCache = new Map<string, Set<string>>();
  const slugsOf = (p: string): Set<string> => {
    let s = slugCache.get(p);
    if (!s) slugCache.set(p, (s = headingSlugs(pages.get(p) ?? readPage(p))));
    return s;
  };
  for (const [page, text] of pages) {
    for (const link of relativeLinks(text)) {
      const target = link.path === '' ? page : resolveRepoPath(page, decodeURIComponent(link.path));
      if (target === null || !exists(target)) {
        broken.push({ ...link, page, reason: `${target ?? link.path} does not exist` });
      } else if (link.anchor !== null && target.endsWith('.md') && !slugsOf(target).has(link.anchor)) {
        broken.push({ ...link, page, reason: `no heading of ${target} has the anchor #${link.anchor}` });
      }
    }
  }
  return broken;
}

/** `path` as written in `page`, relative to the repository root; null when it leaves the repository. */
export function resolveRepoPath(page: string, path: string): string | null {
  const parts = path.startsWith('/') ? [] : page.split('/').slice(0, -1);
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}
