// The malformed inputs of the corpus (corpus.test.ts) that need nothing but a file or a flag:
// sweep specs, bisect flags, install specs and configs (engine, image and stack fields above all).
// Each case is one CLI run and says what its error must name.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The environment of runs that could list versions or build: no module proxy, so a case accepted
 * by mistake fails at the listing instead of building and measuring.
 */
export const NO_PROXY_ENV = { GOPROXY: 'off', GOFLAGS: '-mod=mod' };

export interface CorpusCase {
  kind: string;
  name: string;
  args: string[];
  /** Extra environment of the run. */
  env?: Record<string, string>;
  /** Texts the output (stderr, or stdout for `validate`'s INVALID lines) must contain. */
  names: (string | RegExp)[];
  /** The run must exit 0 (a warning, not an error) instead of failing. */
  succeeds?: boolean;
  /** Cases with the same key are one CLI run (its args are theirs), each checked on its output. */
  shared?: string;
  /** A file of the input that must not be written out (a skipped file is not history). */
  unwritten?: string;
}

/** `sweep <words> --dry-run`: refused before any version is listed or installed. */
export function sweepCases(dir: string): CorpusCase[] {
  const missing = join(dir, 'no-such-config.yaml');
  const cases: [string, string[], (string | RegExp)[]][] = [
    ['no version', ['runc'], ['"runc": name a version']],
    ['nothing after @', ['runc@'], ['"runc@": nothing after "@"']],
    ['latest', ['runc@latest', 'runc@1.2.0'], ['"runc@latest": name a version']],
    ['one version', ['runc@1.1.5'], ['a sweep compares at least two versions']],
    [
      'a pre-release that meant a range',
      ['runc@1.1.5-1.4.3'],
      ['a range is written with "..": runc@1.1.5..1.4.3'],
    ],
    ['a version twice', ['runc@1.1.5', 'runc@1.1.5'], ['"runc@1.1.5" is listed twice']],
    ['two runtimes', ['runc@1.1.5', 'crun@1.2'], ['"crun@1.2": a sweep is over one runtime (runc)']],
    ['no runtime', ['crictl@1.30.0', 'crictl@1.31.0'], ['"crictl@1.30.0": crictl is not a runtime']],
    ['nerdctl', ['nerdctl@2.0.0', 'nerdctl@2.1.0'], ['"nerdctl@2.0.0": nerdctl is not a runtime']],
    ['CRI-O', ['cri-o@1.30.0', 'cri-o@1.31.0'], ['"cri-o@1.30.0": CRI-O versions cannot be installed']],
    ['CRI-O range', ['crio@1.30.0..1.31.0'], ['CRI-O versions cannot be installed']],
    ['toString', ['toString@1', 'toString@2'], ['unknown component "toString"']],
    ['constructor range', ['constructor@1..2'], ['unknown component "constructor"']],
    ['__proto__', ['__proto__@1', '__proto__@2'], ['unknown component "__proto__"']],
    [
      'hasOwnProperty',
      ['hasOwnProperty@1.0.0', 'hasOwnProperty@2.0.0'],
      ['unknown component "hasOwnProperty"'],
    ],
    ['a range cut short', ['runc@1.2.3..', 'runc@1.3.0'], ['"runc@1.2.3..": "1.2.3.." is not a version']],
    ['a range without a start', ['runc@..1.2'], ['"runc@..1.2": "..1.2" is not a version']],
    [
      'a range and a version',
      ['runc@1.1.5..1.4.3', 'runc@1.5.0'],
      ['"runc@1.1.5..1.4.3" is a range: give it alone'],
    ],
    ['a range with three dots', ['runc@1.1.5...1.4.3'], ['".1.4.3" is not a version']],
    ['a range of three', ['runc@v1..v2..v3'], ['is not a version']],
    ['a shell word', ['runc@1.1.5;rm', 'runc@1.2.0'], ['"runc@1.1.5;rm": "1.1.5;rm" is not a version']],
    ['a command substitution', ['runc@1.1.5', 'runc@$(id)'], ['"runc@$(id)": "$(id)" is not a version']],
    ['a path', ['runc@/usr/bin/runc', 'runc@1.2.0'], ['"runc@/usr/bin/runc": name a version']],
    ['a percent sign', ['runc@1.0%1', 'runc@2.0.0'], ['"runc@1.0%1": "1.0%1" is not a version']],
    ['a path climbing out', ['runc@1.0.0/../../etc', 'runc@2.0.0'], ['"runc@1.0.0/../../etc"']],
    ['a 200-character version', ['runc@1.1.5', `runc@1.${'0'.repeat(200)}`], ['is not a version']],
    ['no name', ['@1.2.3', '@1.3.0'], ['unknown component ""']],
    ['an upper-case name', ['RUNC@1.1.5', 'RUNC@1.2.0'], ['unknown component "RUNC"']],
    ['a control character', ['runc@1.1.5\u0007', 'runc@1.2.0'], ['is not a version']],
    ['a unicode digit', ['runc@１.２.３', 'runc@1.2.0'], ['is not a version']],
    ['a 4 KiB version', ['runc@1.1.5', `runc@${'1.'.repeat(2048)}0;`], ['is not a version']],
    [
      'an unknown source',
      ['runc@1.1.5', 'runc@1.2.0', '--source', 'brew'],
      ['--source "brew" is not one of'],
    ],
    [
      'a missing config',
      ['runc@1.1.5', 'runc@1.2.0', '--config', missing],
      [`cannot read config ${missing}`],
    ],
  ];
  const out: CorpusCase[] = cases.map(([name, words, names]) => ({
    kind: 'sweep spec',
    name,
    args: ['sweep', ...words, '--dry-run'],
    env: NO_PROXY_ENV,
    names,
  }));
  // Without --dry-run, the output flags are checked first.
  out.push(
    {
      kind: 'sweep spec',
      name: 'no output',
      args: ['sweep', 'runc@1.1.5', 'runc@1.2.0'],
      names: ['--out FILE or --data-dir DIR'],
    },
    {
      kind: 'sweep spec',
      name: 'both outputs',
      args: ['sweep', 'runc@1.1.5', 'runc@1.2.0', '--out', join(dir, 'o.json'), '--data-dir', dir],
      names: ['--out FILE or --data-dir DIR'],
    },
    {
      kind: 'sweep spec',
      name: 'no versions at all',
      args: ['sweep'],
      names: ["missing required argument 'versions'"],
    },
  );
  return out;
}

const BISECT_BASE = {
  '--component': 'runc',
  '--good': '1.1.0',
  '--bad': '1.2.0',
  '--benchmark': 'operations.container.lifecycle',
  '--metric': 'StartContainer',
};

/** `bisect` with every flag valid but one: refused before anything is built or measured. */
export function bisectCases(dir: string): CorpusCase[] {
  const bad: [string, string[], string?][] = [
    ['--component', ['crun', 'toString', '', 'RUNC', 'runc; id']],
    ['--direction', ['sideways', '', 'SLOWER', 'slower ']],
    ['--benchmark', ['nope', 'operations', 'constructor', '']],
    ['--metric', ['nope', 'toString', 'startcontainer']],
    [
      '--budget',
      ['0', '0m', 'soon', '1d', '-5m', '1h30', '', 'Infinity', '1e3', '9'.repeat(400), '721h', '30m x', 'm'],
    ],
    ['--alpha', ['0', '0.6', 'x', '', 'NaN', 'Infinity', '-0.1', '1/20']],
    ['--rounds-per-look', ['0', '0x10', '1e3', '1.5', '-1', '', '99999999999999999999']],
    ['--looks', ['0', '0x10', 'two', '']],
    ['--warmup', ['', '-1', '0x1', '1.5', 'x']],
    ['--candidates', ['', ',', 'abc,--upload-pack=x', 'a b', 'v1..v2', '-x']],
  ].flatMap(([flag, values]) => (values as string[]).map((v) => [flag as string, [v]] as [string, string[]]));
  // An empty prefix (no cached build) and no module proxy: nothing accepted by mistake gets built.
  const base = { ...BISECT_BASE, '--prefix': join(dir, 'bisect-prefix') };
  const cases: CorpusCase[] = bad.map(([flag, [value]]) => ({
    kind: 'bisect flag',
    name: `${flag} ${JSON.stringify(value)}`,
    args: ['bisect', ...Object.entries({ ...base, [flag]: value! }).flat()],
    env: NO_PROXY_ENV,
    names: [flag],
  }));
  const missing = join(dir, 'no-such-config.yaml');
  const engine = join(dir, 'bisect-bad-engine.yaml');
  writeFileSync(engine, 'targets:\n  - { kind: engine, engine: dockerd, runtimes: [runc] }\n');
  cases.push(
    {
      kind: 'bisect flag',
      name: '--config missing',
      args: ['bisect', ...Object.entries(base).flat(), '--config', missing],
      env: NO_PROXY_ENV,
      names: [`cannot read config ${missing}`],
    },
    {
      kind: 'bisect flag',
      name: '--config with a bad engine',
      args: ['bisect', ...Object.entries(base).flat(), '--config', engine],
      env: NO_PROXY_ENV,
      names: [`${engine}: targets[0].engine`],
    },
    {
      kind: 'bisect flag',
      name: '--good missing',
      args: ['bisect', '--component', 'runc', '--bad', '1.2.0', '--benchmark', 'x', '--metric', 'y'],
      names: ["required option '--good <version>' not specified"],
    },
  );
  return cases;
}

/** `install --dry-run <spec>`: refused before a plan is printed. */
export function installCases(): CorpusCase[] {
  return [
    ['toString@1', 'unknown component "toString"'],
    ['constructor', 'unknown component "constructor"'],
    ['__proto__@1.0.0', 'unknown component "__proto__"'],
    ['runc@', 'nothing after "@"'],
    ['runc@..', '".." is not a version'],
    ['runc@1.0.0..1.1.0', '"1.0.0..1.1.0" is not a version'],
    ['runc@../../etc', '"../../etc" is not a version'],
    ['runc@-1', '"-1" is not a version'],
    ['nope@1', 'unknown component "nope"'],
  ].map(([spec, names]) => ({
    kind: 'install spec',
    name: spec!,
    args: ['install', '--dry-run', '--prefix', '/nonexistent/rb-corpus', spec!],
    names: [names!],
  }));
}

/** A config file of `text` (YAML; JSON is YAML) and what `validate` must name. */
type ConfigCase = [name: string, text: string, field: string];

const engine = (fields: Record<string, unknown>) =>
  JSON.stringify({ targets: [{ kind: 'engine', engine: 'docker', runtimes: ['runc'], ...fields }] });
const nerdctl = (containerd: unknown) =>
  JSON.stringify({ targets: [{ kind: 'engine', engine: 'nerdctl', runtimes: ['runc'], containerd }] });
const images = (fields: Record<string, unknown>) => JSON.stringify({ images: fields });
const kube = (fields: Record<string, unknown>) =>
  JSON.stringify({ targets: [{ kind: 'kubernetes', ...fields }] });
const stack = (fields: Record<string, unknown>) => JSON.stringify({ stack: fields });

const CONFIGS: ConfigCase[] = [
  ...['dockerd', '', 5, null, ['docker'], 'Docker'].map((v): ConfigCase => [
    `engine ${JSON.stringify(v)}`,
    engine({ engine: v }),
    'targets[0].engine',
  ]),
  ...[[], 'runc', 5, null].map((v): ConfigCase => [
    `runtimes ${JSON.stringify(v)}`,
    engine({ runtimes: v }),
    'targets[0].runtimes',
  ]),
  ...['Runc', '--privileged', '', 'a b', '../x', '-'].map((v): ConfigCase => [
    `runtime ${JSON.stringify(v)}`,
    engine({ runtimes: [v] }),
    'targets[0].runtimes[0]',
  ]),
  ['a runtime twice', engine({ runtimes: ['runc', 'runc'] }), 'targets[0].runtimes[1]'],
  ...['', 'a/b', 5, 'a\nb', '../x', 'tab\there'].map((v): ConfigCase => [
    `engine name ${JSON.stringify(v)}`,
    engine({ name: v }),
    'targets[0].name',
  ]),
  ['containerd on docker', engine({ containerd: '1.7.35' }), 'targets[0].containerd'],
  ...['latest', '1.7', '1.7.35/../../x', '1.7.35 --debug', '../1.7.35', 5, '1.7.35\n', '1.7.35-..'].map(
    (v): ConfigCase => [`nerdctl containerd ${JSON.stringify(v)}`, nerdctl(v), 'targets[0].containerd'],
  ),
  ['an unknown engine field', engine({ privileged: true }), 'targets[0]'],
  [
    'an engine target without engine',
    JSON.stringify({ targets: [{ kind: 'engine', runtimes: ['runc'] }] }),
    'targets[0].engine',
  ],
  [
    'kind Engine',
    JSON.stringify({ targets: [{ kind: 'Engine', engine: 'docker', runtimes: ['runc'] }] }),
    'targets[0].kind',
  ],
  ...(['bench', 'pause', 'large'] as const).flatMap((field) =>
    ['--privileged', '', 'a b', 'x\ny', 5, null, '-', ' busybox', `${'a'.repeat(600)}`].map(
      (v): ConfigCase => [
        `images.${field} ${JSON.stringify(v).slice(0, 40)}`,
        images({ [field]: v }),
        `images.${field}`,
      ],
    ),
  ),
  ...[-1, 1.5, 5000, '256', null].map((v): ConfigCase => [
    `largeSizeMiB ${JSON.stringify(v)}`,
    images({ largeSizeMiB: v }),
    'images.largeSizeMiB',
  ]),
  ['an unknown images field', images({ extra: 'x' }), 'images'],
  ...['-it', 'a b', '', 'x\ny'].map((v): ConfigCase => [
    `pod image ${JSON.stringify(v)}`,
    kube({ image: v }),
    'targets[0].image',
  ]),
  ['imagePullPolicy always', kube({ imagePullPolicy: 'always' }), 'targets[0].imagePullPolicy'],
  ['podTimeoutSeconds 0', kube({ podTimeoutSeconds: 0 }), 'targets[0].podTimeoutSeconds'],
  ['podTimeoutSeconds 99999', kube({ podTimeoutSeconds: 99999 }), 'targets[0].podTimeoutSeconds'],
  ...['10.300.0.0/24', '10.0.0.0/33', '10.0.0/24', 'x', '10.0.0.0', '10.0.0.0/24 ', 5].map(
    (v): ConfigCase => [`subnet ${JSON.stringify(v)}`, stack({ subnet: v }), 'stack.subnet'],
  ),
  [
    'a relative handler binary',
    stack({ extraHandlers: [{ name: 'r', binary: 'runc' }] }),
    'stack.extraHandlers[0].binary',
  ],
  [
    'an upper-case handler name',
    stack({ extraHandlers: [{ name: 'Runc', binary: '/usr/bin/runc' }] }),
    'stack.extraHandlers[0].name',
  ],
  [
    'an unknown handler kind',
    stack({ extraHandlers: [{ name: 'r', binary: '/usr/bin/runc', kind: 'kata' }] }),
    'stack.extraHandlers[0].kind',
  ],
  ...[0, -1, 1.5, '10', 1e9].map((v): ConfigCase => [
    `runs ${JSON.stringify(v)}`,
    JSON.stringify({ runs: v }),
    'runs',
  ]),
  ['warmup -1', JSON.stringify({ warmup: -1 }), 'warmup'],
  ['no benchmarks', JSON.stringify({ benchmarks: [] }), 'benchmarks'],
  ['settleSeconds 601', JSON.stringify({ settleSeconds: 601 }), 'settleSeconds'],
  ['callTimeoutSeconds 0', JSON.stringify({ callTimeoutSeconds: 0 }), 'callTimeoutSeconds'],
  ['errorThreshold 2', JSON.stringify({ errorThreshold: 2 }), 'errorThreshold'],
  ['targets a mapping', JSON.stringify({ targets: {} }), 'targets'],
  ['no targets', JSON.stringify({ targets: [] }), 'targets'],
  ['an unknown top-level field', JSON.stringify({ engines: [] }), '(top level)'],
  ['runsPerBenchmark 0', JSON.stringify({ runsPerBenchmark: { operations: 0 } }), 'runsPerBenchmark'],
  ['a top-level list', '[]', '(top level)'],
  ['a top-level string', 'docker', '(top level)'],
  ['an unclosed list', 'targets: [', 'not valid YAML'],
  ['a tab indentation', 'images:\n\tbench: x\n', 'not valid YAML'],
  ['binary junk', '\u0000\u0001\u00ff\ufffe', '(top level)'],
  ['an empty file', '', 'the config is empty'],
  ['an empty document', '---\n...\n', 'the config is empty'],
];

/** `validate <file>` of each malformed config: exit 2, the INVALID line names the file and the field. */
export function configCases(dir: string): CorpusCase[] {
  return CONFIGS.map(([name, text, field], i) => {
    const file = join(dir, `config-${i}.yaml`);
    writeFileSync(file, text);
    return {
      kind: 'config',
      name,
      args: ['validate', file],
      names: [`${file}: ${field}`],
    };
  });
}
