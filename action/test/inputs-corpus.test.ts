// The hostile-input corpus of the action's inputs (the CLI's is runner/test/unit/bad-input/
// corpus.test.ts): each malformed value through what the action does with its inputs before
// anything is installed (readInputs, then the install step's reference-handler check), refused
// with an RbError naming the input. The count is printed.
import { describe, expect, test } from 'vitest';
import { RbError } from '@runtime-bench/runner';
import { readInputs } from '../src/inputs.ts';
import { pinnedSpecs } from '../src/reference.ts';

const CORPUS: Record<string, string[]> = {
  sweep: [
    'runc',
    'runc@',
    'runc@latest runc@1.2.0',
    'runc@1.1.5',
    'runc@1.1.5 runc@1.1.5',
    'runc@1.1.5 crun@1.2',
    'crictl@1.30.0 crictl@1.31.0',
    'cri-o@1.30.0..1.31.0',
    'constructor@1 constructor@2',
    'runc@1.1.5..1.4.3 runc@1.5.0',
    'runc@1.2.3.. runc@1.3.0',
    'runc@1.1.5 runc@1.2.0 --containerd /tmp/x',
    'runc@1.1.5 runc@1.2.0 --out=/etc/passwd',
    '--keep-stack',
    'runc@1.1.5;rm runc@1.2.0',
    'runc@$(id) runc@1.2.0',
    'runc@/usr/bin/runc runc@1.2.0',
    `runc@1.1.5 runc@1.${'0'.repeat(200)}`,
  ],
  'reference-handler': [
    'runc',
    'runc@latest',
    'runc@',
    'runc@/usr/bin/runc',
    'nope@1.2.6',
    'toString@1.2.6',
    'runc@1.2.6;id',
    'runc@../../etc',
    'runc@1.2.6 crun@latest',
  ],
  'bisect-budget': ['0', '0m', 'soon', '1d', '-5m', '1h30', 'Infinity', '1e3', '9'.repeat(400), '721h', 'm'],
  'bisect-on-regression': ['yes', '1', 'on', 'truee'],
  'regression-threshold': ['5 %', '-5%', 'five', '5%%', `${'9'.repeat(400)}%`, '0x10', '1e3%', '%'],
  runs: ['0', '-1', 'ten', '1.5', '100001', '99999999999999999999'],
  source: ['brew', 'Release', 'go proxy'],
  'stack-name': ['Action', '-x', 'a'.repeat(40), 'a b', '../x'],
  'image-pull-policy': ['always', 'Sometimes'],
  cri: ['docker', 'containerd '.repeat(3)],
};

/** What the action makes of one input before the install: its inputs, then the reference check. */
function actOn(name: string, value: string): void {
  const inputs = readInputs({ [`INPUT_${name.toUpperCase()}`]: value });
  pinnedSpecs(inputs['reference-handler']);
}

describe("the action's hostile-input corpus", () => {
  test('every malformed input is refused with an RbError naming the input', () => {
    const failures: string[] = [];
    let count = 0;
    for (const [name, values] of Object.entries(CORPUS))
      for (const value of values) {
        count++;
        try {
          actOn(name, value);
          failures.push(`${name}: ${JSON.stringify(value)} was accepted`);
        } catch (error) {
          const named =
            error instanceof RbError &&
            (error.message.includes(`action inputs: ${name}: `) ||
              (name === 'reference-handler' && error.message.startsWith('reference-handler')));
          if (!named) failures.push(`${name}: ${JSON.stringify(value)}: ${String(error)}`);
        }
      }
    console.log(`action hostile-input corpus: ${count} malformed inputs; ${failures.length} failed`);
    expect(failures).toEqual([]);
  });
});
