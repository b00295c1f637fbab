// Every relative link of the repository's Markdown resolves: the README is a front door into
// docs/, and a page that moves or a heading that is renamed must not leave a dead link behind.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { brokenLinks, headingSlugs, relativeLinks, resolveRepoPath } from '../../support/markdown-links.ts';

const root = join(import.meta.dirname, '../../../..');

/** Directories that hold no docs of ours: dependencies, results, build output. */
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.astro']);

function markdownPages(): Map<string, string> {
  const pages = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name) && path !== 'data') walk(path);
      } else if (entry.isFile() && entry.name.endsWith('.md')) {
        pages.set(path, readFileSync(join(root, path), 'utf8'));
      }
    }
  };
  walk('');
  return pages;
}

describe('the repository’s Markdown', () => {
  const pages = markdownPages();

  test('is found: the README, CONTRIBUTING and the docs pages', () => {
    expect([...pages.keys()]).toEqual(
      expect.arrayContaining([
        'README.md',
        'CONTRIBUTING.md',
        'docs/statistics.md',
        'runner/src/stats/README.md',
      ]),
    );
  });

  test('has no relative link to a missing file or heading', () => {
    const broken = brokenLinks(
      pages,
      (p) => existsSync(join(root, p)),
      (p) => readFileSync(join(root, p), 'utf8'),
    );
    expect(broken.map((b) => `${b.page}:${b.line}: (${b.target}) ${b.reason}`)).toEqual([]);
  });
});

describe('CONTRIBUTING’s owner table', () => {
  test('names every folder of runner/src', () => {
    const contributing = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
    const table = contributing.slice(contributing.indexOf('## Who owns what'));
    const rows = table.slice(0, table.indexOf('\n\n', table.indexOf('| concept')));
    const folders = readdirSync(join(root, 'runner/src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((name) => !rows.includes(`runner/src/${name}/`))).toEqual([]);
  });
});

describe('links and anchors as GitHub reads them', () => {
  test('inline links, not those in code; external ones left out', () => {
    const text = [
      'See [the stack](docs/stack.md) and [x](../data/README.md#bisection-reports "title").',
      '`[not](a-link.md)` and [web](https://example.com) and [mail](mailto:a@b.c)',
      '```md',
      '[in a fence](nowhere.md)',
      '```',
      '![image](img/a.png) [same page](#usage)',
    ].join('\n');
    expect(relativeLinks(text).map((l) => [l.line, l.path, l.anchor])).toEqual([
      [1, 'docs/stack.md', null],
      [1, '../data/README.md', 'bisection-reports'],
      [6, 'img/a.png', null],
      [6, '', 'usage'],
    ]);
  });

  test('heading anchors: code ticks dropped, punctuation removed, duplicates numbered', () => {
    // The anchors GitHub gave these headings, as earlier README links used them.
    const text = [
      '## Bisection steps (`sequential-position.ts`, `runtime-bench bisect`)',
      "#### The engine studies' findings on this host",
      '## Quick start (fresh Debian 12, as root)',
      '## image.pull, image.concurrent-pulls, image.pod-start',
      '```sh',
      '# not a heading',
      '```',
      '## Usage',
      '## Usage',
    ].join('\n');
    expect([...headingSlugs(text)]).toEqual([
      'bisection-steps-sequential-positionts-runtime-bench-bisect',
      'the-engine-studies-findings-on-this-host',
      'quick-start-fresh-debian-12-as-root',
      'imagepull-imageconcurrent-pulls-imagepod-start',
      'usage',
      'usage-1',
    ]);
  });

  test('paths resolve against the page, or the root; leaving the repository is no path', () => {
    expect(resolveRepoPath('runner/src/stats/README.md', '../../../docs/statistics.md')).toBe(
      'docs/statistics.md',
    );
    expect(resolveRepoPath('docs/cli.md', '/examples/quick.yaml')).toBe('examples/quick.yaml');
    expect(resolveRepoPath('README.md', '../shared/docs/stack.md')).toBeNull();
  });

  test('a missing file, a missing anchor and a link out of the repository are reported', () => {
    const pages = new Map([
      [
        'README.md',
        '# Top\n[ok](docs/a.md#part) [gone](docs/b.md) [bad anchor](docs/a.md#nope) [out](../x.md)',
      ],
      ['docs/a.md', '# A\n## Part\n[back](../README.md#top) [self](#a)'],
    ]);
    const broken = brokenLinks(
      pages,
      (p) => pages.has(p),
      () => '',
    );
    expect(broken.map((b) => [b.page, b.target])).toEqual([
      ['README.md', 'docs/b.md'],
      ['README.md', 'docs/a.md#nope'],
      ['README.md', '../x.md'],
    ]);
  });
});
