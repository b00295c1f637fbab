// Configs that used to be accepted or explained badly: the real CLI (`run`), which must stop
// before anything starts, exit 2 and name the file, the field and the fix.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import { parseConfig } from '../../../src/config/load.ts';
import { runCli } from '../../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-bad-config-'));

describe.concurrent('configs refused with the file, the field and the fix (exit 2)', () => {
  test.each([
    ['an empty file', '', ['NAME: the config is empty'], 'write `{}` to run every default on purpose'],
    [
      'a file of comments only',
      '# benchmarks: [operations]\n\n   \n',
      ['NAME: the config is empty'],
      'set at least one field',
    ],
    [
      'a typo in skip',
      'skip: [perfomance]\n',
      ['NAME: skip[0]: "perfomance" matches no benchmark'],
      'did you mean performance?',
    ],
    [
      'skip cancelling benchmarks',
      'benchmarks: [performance.cpu]\nskip: [performance]\n',
      ['NAME: skip: [performance] removes every benchmark that benchmarks: [performance.cpu] selects'],
      'drop entries from skip',
    ],
    [
      'a handler listed twice',
      'targets:\n  - handlers: [runc, crun, runc]\n',
      ['NAME: targets[0].handlers[2]: "runc" repeats handlers[0]; list each once'],
      'schemas/json/config.schema.json',
    ],
    [
      'two extra handlers with one name',
      'stack:\n  extraHandlers:\n    - { name: r1, binary: /usr/sbin/runc }\n    - { name: r1, binary: /usr/bin/crun }\n',
      ['NAME: stack.extraHandlers[1].name: "r1" repeats extraHandlers[0]; list each once'],
      'schemas/json/config.schema.json',
    ],
    [
      'an absurd size',
      'parameters:\n  performance.disk: { totalSize: 99999999999999999999999T }\n',
      ['NAME: parameters["performance.disk"].totalSize: a size must be between 0 and 1024T (2^50 bytes)'],
      'schemas/json/config.schema.json',
    ],
    [
      'one handler written as a string',
      'targets:\n  - handlers: runc\n',
      ['NAME: targets[0].handlers: "runc" is one name, not a list: write handlers: [runc], or "all"'],
      'schemas/json/config.schema.json',
    ],
  ])(
    '%s',
    async (what, text, expected, hint) => {
      const path = join(dir, `${what.replaceAll(' ', '-')}.yaml`);
      writeFileSync(path, text);
      const r = await runCli(['run', '--config', path, '--out', join(dir, 'never-written.json')]);
      expect(r.code).toBe(2);
      for (const e of expected) expect(r.stderr).toContain(e.replace('NAME', path));
      expect(r.stderr).toMatch(new RegExp(`^hint: .*${hint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
      expect(r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+\)?\n/);
    },
    60_000,
  );

  test('`{}` still means every default on purpose', () => {
    expect(parseConfig('{}\n', 'braces.yaml')).toEqual(ConfigSchema.parse({}));
  });
});
