// Property tests over the parsers of sweep and bisect specs and of component specs: arbitrary
// text never throws anything but an RbError, valid inputs written from the grammar are read back
// exactly, and a valid input with one part broken is refused with that part named.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { parseSweepSpecs } from '../../../src/sweep/plan.ts';
import {
  alphaFlag,
  candidatesFlag,
  directionFlag,
  nonNegativeInt,
  parseBudget,
  positiveInt,
} from '../../../src/bisect/options.ts';
import { parseSpec } from '../../../src/install/components.ts';

/** What a parser did with one input: its value, or the RbError it refused it with. */
function outcome<T>(parse: () => T): { value: T } | { error: RbError } {
  try {
    return { value: parse() };
  } catch (error) {
    // Anything but an RbError is a crash the CLI would report as a bug (exit 70).
    expect(error).toBeInstanceOf(RbError);
    return { error: error as RbError };
  }
}

/** Words a hostile spec is made of: names (and names of Object's prototype), versions, separators. */
const word = fc.oneof(
  fc.string(),
  fc.constantFrom(
    'runc',
    'crun',
    'containerd',
    'cri-o',
    'crio',
    'crictl',
    'constructor',
    'toString',
    '__proto__',
    'hasOwnProperty',
    '@',
    '..',
    '...',
    'latest',
    '1.2.3',
    'v1.1.5',
    '/usr/bin/runc',
    '--prefix',
    '-x',
  ),
);
const hostileSpec = fc.array(word, { maxLength: 6 }).map((parts) => parts.join(''));

const SWEEPABLE = ['runc', 'crun', 'runsc', 'youki', 'containerd'] as const;
const version = fc
  .tuple(fc.nat(30), fc.nat(30), fc.nat(30), fc.boolean())
  .map(([a, b, c, v]) => `${v ? 'v' : ''}${a}.${b}.${c}`);

describe('sweep specs', () => {
  test('arbitrary arguments: a spec or an RbError, never another exception', () => {
    fc.assert(
      fc.property(fc.array(hostileSpec, { maxLength: 4 }), (args) => {
        const r = outcome(() => parseSweepSpecs(args));
        if ('value' in r) {
          expect(SWEEPABLE).toContain(r.value.component);
          if (r.value.range === null) expect(r.value.versions.length).toBeGreaterThanOrEqual(2);
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('a list from the grammar is read back in order; a range gives both ends', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SWEEPABLE),
        fc.uniqueArray(version, { minLength: 2, maxLength: 5 }),
        fc.constantFrom(' ', ',', ', ', '\n'),
        (component, versions, sep) => {
          const spec = parseSweepSpecs([versions.map((v) => `${component}@${v}`).join(sep)]);
          expect(spec).toEqual({
            component,
            kind: component === 'containerd' ? 'cri' : 'oci',
            range: null,
            versions,
          });
          const range = parseSweepSpecs([`${component}@${versions[0]}..${versions[1]}`]);
          expect(range.range).toEqual({ from: versions[0], to: versions[1] });
        },
      ),
    );
  });

  test('one word broken: refused, naming that word', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SWEEPABLE),
        fc.uniqueArray(version, { minLength: 2, maxLength: 4 }),
        fc.nat(),
        fc.constantFrom(
          (c: string) => `${c}@latest`,
          (c: string) => c,
          (c: string) => `${c}@`,
          (c: string) => `${c}@1.0%1`,
          (c: string) => `${c}@/usr/bin/${c}`,
          () => 'crictl@1.2.3',
          () => 'constructor@1.2.3',
          () => 'toString@1.0.0',
          () => '--prefix=/',
          () => 'runc@1.2.3..',
        ),
        (component, versions, at, breakWord) => {
          const words = versions.map((v) => `${component}@${v}`);
          const i = at % words.length;
          const broken = breakWord(component).split(' ')[0]!;
          words[i] = broken;
          const r = outcome(() => parseSweepSpecs(words));
          expect('error' in r).toBe(true);
          if ('error' in r) expect(r.error.message).toContain(broken);
        },
      ),
    );
  });
});

describe('component specs', () => {
  test("a name of Object's prototype is no component", () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])
      expect(() => parseSpec(`${name}@1.0.0`)).toThrow(`unknown component "${name}"`);
  });

  test('arbitrary text: a spec of a known component or an RbError naming the text', () => {
    fc.assert(
      fc.property(hostileSpec, (text) => {
        const r = outcome(() => parseSpec(text));
        if ('error' in r) expect(r.error.message).toContain(`"${text}"`);
        else
          expect(['runc', 'crun', 'runsc', 'youki', 'containerd', 'cri-o', 'crictl', 'nerdctl']).toContain(
            r.value.name,
          );
      }),
      { numRuns: 2000 },
    );
  });
});

describe('bisect flags', () => {
  const durations = fc
    .tuple(fc.option(fc.nat(99)), fc.option(fc.nat(99)), fc.option(fc.nat(99)))
    .filter(([h, m, s]) => (h ?? 0) + (m ?? 0) + (s ?? 0) > 0);

  test('--budget from the grammar: the minutes it says', () => {
    fc.assert(
      fc.property(durations, ([h, m, s]) => {
        const text = `${h === null ? '' : `${h}h`}${m === null ? '' : `${m}m`}${s === null ? '' : `${s}s`}`;
        expect(parseBudget(text)).toBeCloseTo((h ?? 0) * 60 + (m ?? 0) + (s ?? 0) / 60, 9);
      }),
    );
  });

  test('--budget: arbitrary text is a finite positive number of minutes or an error naming --budget', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^[0-9hms.]{0,400}$/), fc.constant('9'.repeat(400))),
        (text) => {
          const r = outcome(() => parseBudget(text));
          if ('value' in r) {
            expect(r.value).toBeGreaterThan(0);
            expect(r.value).toBeLessThanOrEqual(30 * 24 * 60);
          } else expect(r.error.message).toContain(`--budget "${text}"`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('--budget with one character broken is refused', () => {
    fc.assert(
      fc.property(durations, fc.constantFrom('x', ' 1', '-', 'mm', 'h1', 'd'), ([h, m], junk) => {
        const text = `${h ?? 1}h${m ?? 0}m${junk}`;
        expect(() => parseBudget(text)).toThrow(`--budget "${text}"`);
      }),
    );
  });

  test('counts: decimal digits only, named with the flag', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.nat().map(String)), (text) => {
        const pos = outcome(() => positiveInt('--looks', text));
        const whole = outcome(() => nonNegativeInt('--warmup', text));
        const digits = /^\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text));
        expect('value' in pos).toBe(digits && Number(text) >= 1);
        expect('value' in whole).toBe(digits);
        if ('error' in pos) expect(pos.error.message).toContain(`--looks "${text}"`);
        if ('error' in whole) expect(whole.error.message).toContain(`--warmup "${text}"`);
      }),
      { numRuns: 2000 },
    );
    for (const text of ['0x10', '1e3', '', ' ', '2.0', '-0', '99999999999999999999'])
      expect(() => positiveInt('--looks', text)).toThrow('--looks');
  });

  test('--alpha and --direction: a value in range or an error naming the flag', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double().map(String)), (text) => {
        const a = outcome(() => alphaFlag(text));
        if ('value' in a) expect(a.value > 0 && a.value <= 0.5).toBe(true);
        else expect(a.error.message).toContain(`--alpha "${text}"`);
        const d = outcome(() => directionFlag(text));
        if ('value' in d) expect(['slower', 'faster']).toContain(text);
        else expect(d.error.message).toContain(`--direction "${text}"`);
      }),
      { numRuns: 2000 },
    );
  });

  test('--candidates: names git and the proxy take, in order, or an error naming the one that is not', () => {
    const ref = fc.oneof(
      fc.stringMatching(/^[0-9a-f]{7,40}$/),
      fc.constantFrom('v1.2.0-rc.1', 'main', 'v0.0.0-20240101000000-0123456789ab', 'HEAD~3'),
    );
    fc.assert(
      fc.property(fc.array(ref, { minLength: 1, maxLength: 5 }), (refs) => {
        expect(candidatesFlag(refs.join(', '))).toEqual(refs);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          for (const r of candidatesFlag(text)) expect(r).toMatch(/^[^-\s,][^\s,]*$/);
        } catch (error) {
          expect(error).toBeInstanceOf(RbError);
          expect((error as RbError).message).toMatch(/^--candidates/);
        }
      }),
      { numRuns: 2000 },
    );
    for (const bad of ['abc,--upload-pack=x', 'a b', ',', 'v1..v2', 'main,'.repeat(3) + '-x'])
      expect(() => candidatesFlag(bad)).toThrow('--candidates');
  });
});
