// A cache of file digests keyed by content: a nightly build of ten thousand files parses and
// validates only the files it has not seen. An entry is found by the SHA-1 of the file's bytes,
// below a namespace that is the hash of every source the digest depends on (the result schema
// with its refinements, the runner's reader and parser, the site's digest code), so a change to
// any of them — a new refinement, a new digest field — starts a new cache instead of trusting
// one made by other rules. Only valid files are cached: an invalid file is reported on every build.
import { hash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';

/** The source directories and files whose code decides what a digest is. */
function sources(): string[] {
  const schemas = dirname(fileURLToPath(import.meta.resolve('@runtime-bench/schemas')));
  const runner = dirname(fileURLToPath(import.meta.resolve('@runtime-bench/runner')));
  const here = dirname(fileURLToPath(import.meta.url));
  const files = readdirSync(schemas, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => join(schemas, f));
  return [
    ...files,
    join(runner, 'results', 'io.ts'),
    join(runner, 'stats', 'descriptive.ts'),
    // which targets of a run are a side-by-side version pair
    join(runner, 'compare', 'version-pairs.ts'),
    join(runner, 'compare', 'version-change.ts'),
    join(here, 'site-index.ts'),
    join(here, 'run-digest.ts'),
    join(here, 'enforcement.ts'),
    join(here, 'compare-data.ts'),
    join(here, 'load-worker.ts'),
    fileURLToPath(import.meta.url),
  ];
}

export class DigestCache {
  private readonly dir: string;

  constructor(root: string) {
    const h = hash(
      'sha1',
      sources()
        .map((f) => `${f}\n${readFileSync(f, 'utf8')}`)
        .join('\n'),
    );
    this.dir = join(root, h);
  }

  /** The key of a file's content. */
  key(bytes: Buffer): string {
    return hash('sha1', bytes);
  }

  private path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.v8`);
  }

  get<T>(key: string): T | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path(key));
    } catch {
      return undefined;
    }
    try {
      return deserialize(bytes) as T;
    } catch {
      return undefined; // a torn entry: computed again and rewritten
    }
  }

  /** Written under a temporary name and renamed, so a reader never sees half an entry. */
  set(key: string, value: unknown): void {
    const path = this.path(key);
    try {
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, serialize(value));
      renameSync(tmp, path);
    } catch {
      // A cache that cannot be written only makes the next build slower.
    }
  }
}
