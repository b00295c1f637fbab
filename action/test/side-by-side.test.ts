// The previous version beside the new one, as the action prepares it: which targets are tracked,
// what the side-by-side step asks the CLI (argument building, with the CLI's answers scripted), and
// what the run config then declares. The CLI's own planning and its reading of a real data branch
// are tested in runner/test/unit/history/side-by-side.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import { InstallRecordSchema, writeInstallRecord, type InstallRecord } from '@runtime-bench/runner/install';
import { readInputs } from '../src/inputs.ts';
import { buildRunConfig } from '../src/run-config.ts';
import { readSideBySide, sideBySideOff, stepSideBySide, trackedTargets } from '../src/side-by-side.ts';
import type { StepContext } from '../src/step-context.ts';

/** A record as the installer writes it: a component and a handler per name@version. */
function recordWith(installed: [name: string, version: string][]): InstallRecord {
  return InstallRecordSchema.parse({
    recordVersion: 1,
    prefix: '/opt/runtime-bench',
    source: 'release',
    createdAt: '2026-11-27T00:00:00Z',
    components: installed.map(([name, version]) => ({
      name,
      role: 'oci',
      version,
      source: 'release',
      dir: `/opt/runtime-bench/${name}/${version}`,
      binaries: { [name]: `/opt/runtime-bench/${name}/${version}/bin/${name}` },
      reported: version,
      detail: 'test',
      createdByThisInstall: true,
    })),
    handlers: installed.map(([name, version]) => ({
      name: `${name}-${version}`,
      binary: `/opt/runtime-bench/${name}/${version}/bin/${name}`,
      kind: name,
    })),
    containerd: [{ version: '2.1.9', binary: '/opt/runtime-bench/containerd/2.1.9/bin/containerd' }],
    crictl: null,
    stackConfig: '/tmp/stack.yaml',
    created: [],
    stacks: [],
  });
}

let workDir: string;
beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'rb-action-sbs-'));
});
afterEach(async () => rm(workDir, { recursive: true, force: true }));

/** A step context whose CLI answers are scripted per command; every call is recorded. */
function context(
  env: Record<string, string>,
  answer: (args: string[]) => Promise<string>,
): { ctx: StepContext; calls: { args: string[]; env: Record<string, string> }[] } {
  const calls: { args: string[]; env: Record<string, string> }[] = [];
  const ctx: StepContext = {
    inputs: readInputs(env),
    workDir,
    workspace: '/workspace',
    setOutput: () => undefined,
    runtimeBench: async (args, e = {}) => {
      calls.push({ args, env: e });
      return answer(args);
    },
    stepSummary: false,
  };
  return { ctx, calls };
}

describe('the side-by-side step', () => {
  test('tracks only the runtimes asked for at a moving version, with the versions installed', () => {
    const record = recordWith([
      ['runc', '1.4.4'],
      ['runc', '1.2.6'],
      ['crun', '1.21'],
    ]);
    const inputs = readInputs({ 'INPUT_OCI-RUNTIMES': 'runc@latest runc@1.2.6 crun@1.21' });
    expect(trackedTargets(inputs, record)).toEqual([
      { id: 'containerd-latest/runc-latest', handler: 'runc-latest', name: 'runc', version: '1.4.4' },
    ]);
  });

  test('a moved runtime: the plan is asked with the token, the previous version installed into its own record, the pair declared', async () => {
    await writeInstallRecord(join(workDir, 'install.json'), recordWith([['runc', '1.4.4']]));
    const { ctx, calls } = context(
      { 'INPUT_OCI-RUNTIMES': 'runc@latest', INPUT_TOKEN: 'secret', 'INPUT_REGRESSION-THRESHOLD': '3%' },
      async (args) => {
        if (args[0] === 'data')
          return JSON.stringify({
            pairs: [
              {
                target: 'containerd-latest/runc-latest',
                name: 'runc',
                from: '1.4.3',
                to: '1.4.4',
                look: 1,
                why: 'moved',
              },
            ],
            notes: [],
          });
        // The install: writes the record the step then reads, as the installer would.
        await writeInstallRecord(args[args.indexOf('--state') + 1]!, recordWith([['runc', '1.4.3']]));
        return '';
      },
    );
    await stepSideBySide(ctx);
    expect(calls.map((c) => c.args.slice(0, 2))).toEqual([
      ['data', 'side-by-side'],
      ['install', '--source'],
    ]);
    expect(calls[0]!.args).toEqual(
      expect.arrayContaining([
        '--target',
        'containerd-latest/runc-latest=1.4.4',
        '--threshold',
        '3%',
        '--json',
      ]),
    );
    expect(calls[0]!.env).toEqual({ RB_PUBLISH_TOKEN: 'secret' });
    expect(calls[1]!.args).toEqual([
      'install',
      '--source',
      'release',
      '--prefix',
      '/opt/runtime-bench',
      '--state',
      join(workDir, 'install-previous.json'),
      'runc@1.4.3',
    ]);
    expect(calls[1]!.env).toEqual({});
    const beside = await readSideBySide(workDir);
    expect(beside.pairs).toEqual([{ before: 'runc-1.4.3', after: 'runc-latest' }]);

    const config = buildRunConfig(null, ctx.inputs, recordWith([['runc', '1.4.4']]), beside);
    const target = config.targets[0]!;
    expect('handlers' in target && target.handlers).toEqual(['runc-latest', 'runc-1.4.3']);
    expect(config.stack.extraHandlers.map((h) => h.binary)).toEqual([
      '/opt/runtime-bench/runc/1.4.4/bin/runc',
      '/opt/runtime-bench/runc/1.4.3/bin/runc',
    ]);
    expect(config.roundOrder).toBe('shuffled');
    expect(config.versionChanges).toEqual([
      { before: 'containerd-latest/runc-1.4.3', after: 'containerd-latest/runc-latest' },
    ]);
    // What the action writes is a config the runner accepts as it is.
    expect(ConfigSchema.parse(config)).toEqual(config);
  });

  test('an unreadable data branch or a failed install never fails the night: no pair, a plain run', async () => {
    await writeInstallRecord(join(workDir, 'install.json'), recordWith([['runc', '1.4.4']]));
    const failing = context({ 'INPUT_OCI-RUNTIMES': 'runc@latest' }, async () => {
      throw new Error('exit 1');
    });
    await stepSideBySide(failing.ctx);
    expect(await readSideBySide(workDir)).toEqual({ handlers: [], pairs: [] });
    const config = buildRunConfig(
      null,
      failing.ctx.inputs,
      recordWith([['runc', '1.4.4']]),
      await readSideBySide(workDir),
    );
    expect(config.roundOrder).toBe('fixed');
    expect(config.versionChanges).toEqual([]);
  });

  test('off by input, in a sweep, in cluster mode and for the path source; nothing asked of the CLI', async () => {
    expect(sideBySideOff(readInputs({ 'INPUT_SIDE-BY-SIDE': 'false' }))).toMatch(/side-by-side: false/);
    expect(sideBySideOff(readInputs({ INPUT_SWEEP: 'runc@1.1.5..1.4.3' }))).toMatch(/sweep/);
    expect(sideBySideOff(readInputs({ INPUT_SOURCE: 'path' }))).toMatch(/path/);
    expect(sideBySideOff(readInputs({}))).toBeNull();
    const { ctx, calls } = context({ 'INPUT_SIDE-BY-SIDE': 'false' }, async () => '');
    await stepSideBySide(ctx);
    expect(calls).toEqual([]);
    expect(JSON.parse(await readFile(join(workDir, 'side-by-side.json'), 'utf8'))).toEqual({
      handlers: [],
      pairs: [],
    });
  });
});
