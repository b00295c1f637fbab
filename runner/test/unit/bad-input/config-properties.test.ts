// Property tests over the config parser, engine and image settings above all: arbitrary text or
// JSON gives a config or an RbError naming the file, engine targets written from the grammar are
// read back, and one field made hostile is refused with that field named.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { parseConfig } from '../../../src/config/load.ts';

const WHERE = 'hostile.yaml';

/** parseConfig's value, or the RbError it refused the text with (anything else fails the test). */
function parse(text: string): { ok: true } | { ok: false; message: string } {
  try {
    parseConfig(text, WHERE);
    return { ok: true };
  } catch (error) {
    expect(error).toBeInstanceOf(RbError);
    // `invalid config` then one line per field, each `<file>: <field>: <problem>`.
    expect((error as RbError).message).toMatch(new RegExp(`(^|\n)${WHERE}: `));
    return { ok: false, message: (error as RbError).message };
  }
}

const runtime = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,12}$/);
const imageRef = fc
  .tuple(
    fc.constantFrom('localhost', 'registry.example.com:5000', 'docker.io', 'ghcr.io'),
    fc.array(fc.stringMatching(/^[a-z0-9]+(?:[._-][a-z0-9]+)*$/), { minLength: 1, maxLength: 3 }),
    fc.option(fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}$/)),
  )
  .map(([host, path, tag]) => `${host}/${path.join('/')}${tag === null ? '' : `:${tag}`}`);
const engineTarget = fc.record({
  kind: fc.constant('engine'),
  engine: fc.constantFrom('docker', 'podman', 'nerdctl'),
  runtimes: fc.uniqueArray(runtime, { minLength: 1, maxLength: 3 }),
});

describe('configs', () => {
  test('arbitrary text: a config or an RbError naming the file', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => void parse(text)),
      { numRuns: 1000 },
    );
  });

  test('arbitrary JSON (YAML is a superset): a config or an RbError naming the file', () => {
    const fields = fc.constantFrom(
      'targets',
      'images',
      'stack',
      'runs',
      'benchmarks',
      'parameters',
      'runsPerBenchmark',
      '__proto__',
      'constructor',
    );
    fc.assert(
      fc.property(fc.dictionary(fields, fc.jsonValue({ maxDepth: 3 })), (doc) => {
        void parse(JSON.stringify(doc));
      }),
      { numRuns: 1000 },
    );
  });

  test('engine targets and images from the grammar are read back', () => {
    fc.assert(
      fc.property(engineTarget, imageRef, imageRef, (target, bench, pause) => {
        const config = parseConfig(JSON.stringify({ targets: [target], images: { bench, pause } }), WHERE);
        expect(config.targets).toEqual([target]);
        expect(config.images).toMatchObject({ bench, pause });
      }),
    );
  });

  test('what earlier configs (and the results recording them) could hold still reads', () => {
    const config = parseConfig(
      JSON.stringify({
        targets: [
          {
            kind: 'engine',
            engine: 'nerdctl',
            name: 'nerdctl 2 (ci)',
            runtimes: ['runc'],
            containerd: 'v1.7.24~ds1',
          },
        ],
        images: {
          bench: 'ghcr.io/o/bench@sha256:0123abcd',
          pause: 'registry.k8s.io/pause:3.10',
          large: '[::1]:5000/runtime-bench/large:latest',
        },
      }),
      WHERE,
    );
    expect(config.targets[0]).toMatchObject({ name: 'nerdctl 2 (ci)', containerd: 'v1.7.24~ds1' });
  });

  test.each<[string, Record<string, unknown>, string]>([
    [
      'an unknown engine',
      { targets: [{ kind: 'engine', engine: 'dockerd', runtimes: ['runc'] }] },
      'targets[0].engine',
    ],
    ['no runtime', { targets: [{ kind: 'engine', engine: 'docker', runtimes: [] }] }, 'targets[0].runtimes'],
    [
      'a runtime as a flag',
      { targets: [{ kind: 'engine', engine: 'docker', runtimes: ['--privileged'] }] },
      'targets[0].runtimes[0]',
    ],
    [
      'a containerd version climbing out of the prefix',
      {
        targets: [
          { kind: 'engine', engine: 'nerdctl', runtimes: ['runc'], containerd: '1.7.35/../../../etc' },
        ],
      },
      'targets[0].containerd',
    ],
    [
      'a containerd version with a space',
      { targets: [{ kind: 'engine', engine: 'nerdctl', runtimes: ['runc'], containerd: '1.7.35 --debug' }] },
      'targets[0].containerd',
    ],
    [
      'an engine name with a slash',
      { targets: [{ kind: 'engine', engine: 'docker', name: 'a/b', runtimes: ['runc'] }] },
      'targets[0].name',
    ],
    [
      'an engine name with a newline',
      { targets: [{ kind: 'engine', engine: 'docker', name: 'a\nb', runtimes: ['runc'] }] },
      'targets[0].name',
    ],
    ['an image that is a flag', { images: { bench: '--privileged' } }, 'images.bench'],
    ['an image with a space', { images: { pause: 'busybox --rm' } }, 'images.pause'],
    ['an image with a newline', { images: { large: 'busybox\nx' } }, 'images.large'],
    ['a negative image size', { images: { largeSizeMiB: -1 } }, 'images.largeSizeMiB'],
    ['a fractional image size', { images: { largeSizeMiB: 1.5 } }, 'images.largeSizeMiB'],
    ['a pod image that is a flag', { targets: [{ kind: 'kubernetes', image: '-it' }] }, 'targets[0].image'],
    ['a subnet octet over 255', { stack: { subnet: '10.300.0.0/24' } }, 'stack.subnet'],
    ['a subnet prefix over 32', { stack: { subnet: '10.0.0.0/33' } }, 'stack.subnet'],
    [
      'an extra handler binary that is relative',
      { stack: { extraHandlers: [{ name: 'r', binary: 'runc' }] } },
      'stack.extraHandlers[0].binary',
    ],
  ])('%s is refused, naming %s', (_what, doc, field) => {
    const r = parse(JSON.stringify(doc));
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) expect(r.message).toContain(`${WHERE}: ${field}`);
  });
});
