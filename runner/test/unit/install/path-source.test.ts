// The path source with real executables in a temp dir: found on PATH or by explicit path,
// versions read by running them; nothing is copied.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  addStackToRecord,
  install,
  parseSpecList,
  readInstallRecord,
  realInstallEnv,
  uninstall,
} from '../../../src/install/index.ts';
import { CLI } from '../../support/cli.ts';
import { sharedTool, sharedToolsDir } from '../../support/shared-tools.ts';

const run = promisify(execFile);

let work: string;
let bin: string;
const savedPath = process.env.PATH;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-path-'));
  bin = join(work, 'bin');
  await mkdir(bin);
  const tools: Record<string, string> = {
    runc: 'runc version 1.1.15+ds1\ncommit: x',
    crun: 'crun version 1.21',
    containerd: 'containerd github.com/containerd/containerd v1.7.24 abc',
    'containerd-shim-runc-v2': 'shim',
  };
  for (const [name, out] of Object.entries(tools)) {
    await writeFile(join(bin, name), `#!/bin/sh\nprintf '%s\\n' "${out}"\n`);
    await chmod(join(bin, name), 0o755);
  }
  await writeFile(join(bin, 'not-executable'), '');
  process.env.PATH = `${bin}:${savedPath}`;
});
afterAll(async () => {
  process.env.PATH = savedPath;
  await rm(work, { recursive: true, force: true });
});

test('versions are read from the binaries; shims beside containerd are found; nothing is installed', async () => {
  const prefix = join(work, 'prefix');
  const statePath = join(work, 'state', 'install.json');
  const record = await install(
    realInstallEnv(() => {}),
    {
      specs: parseSpecList(`containerd runc@1.1.15 crun@${join(bin, 'crun')}`),
      source: 'path',
      prefix,
      suites: [],
    },
    { statePath },
  );
  expect(record.components.map((c) => [c.name, c.version, c.dir, c.createdByThisInstall])).toEqual([
    ['containerd', '1.7.24', null, false],
    ['runc', '1.1.15', null, false],
    ['crun', '1.21', null, false],
  ]);
  // ctr is not in bin/: it is looked for on PATH (the host's, if any) and is optional.
  expect(record.components[0]!.binaries).toMatchObject({
    containerd: join(bin, 'containerd'),
    'containerd-shim-runc-v2': join(bin, 'containerd-shim-runc-v2'),
  });
  expect(record.handlers).toEqual([
    { name: 'runc-1.1.15', binary: join(bin, 'runc'), kind: 'runc' },
    { name: 'crun-1.21', binary: join(bin, 'crun'), kind: 'crun' },
  ]);
  expect(await readdir(work)).not.toContain('prefix');

  // Uninstall stops the stacks noted in the record (a real `stack down` of a never-started stack,
  // which is safe to repeat), then removes the state it wrote, and never the binaries it only used.
  await addStackToRecord(statePath, { name: 'install-path-test', stateDir: join(work, 'stack') });
  expect((await readInstallRecord(statePath)).stacks).toEqual([
    { name: 'install-path-test', stateDir: join(work, 'stack') },
  ]);
  const report = await uninstall(
    realInstallEnv(() => {}),
    statePath,
  );
  expect(report.errors).toEqual([]);
  expect(report.stoppedStacks).toEqual(['install-path-test']);
  expect((await readdir(bin)).length).toBe(5);
  expect(await readdir(work)).not.toContain('state');
}, 60_000);

test(
  'a version that differs from the one asked for is an error naming both',
  { timeout: 60_000 },
  async () => {
    await expect(
      install(
        realInstallEnv(() => {}),
        { specs: parseSpecList('runc@1.3.6'), source: 'path', prefix: '/nonexistent', suites: [] },
        { statePath: join(work, 'x.json') },
      ),
    ).rejects.toThrow(`runc@1.3.6: ${join(bin, 'runc')} is version 1.1.15`);
  },
);

test('a missing binary says how to point at it', { timeout: 60_000 }, async () => {
  await expect(
    install(
      realInstallEnv(() => {}),
      { specs: parseSpecList('youki'), source: 'path', prefix: '/nonexistent', suites: [] },
      { statePath: join(work, 'y.json') },
    ),
  ).rejects.toMatchObject({
    code: 'INSTALL_NOT_FOUND',
    hint: expect.stringContaining('youki@/path/to/youki'),
  });
});

// The shared builds of CRI-O and crictl (../shared/tools, or $RB_SHARED_TOOLS), as the CRI-O
// stack uses them: found through --path-dir, versions read by running them, nothing copied.
const CRIO = sharedTool('cri-o/crio');
const CRICTL = sharedTool('cri-tools/crictl');
if (!CRIO || !CRICTL)
  console.warn(`SKIPPED the shared CRI-O/crictl path install: none in ${sharedToolsDir()}`);

describe.runIf(CRIO !== null && CRICTL !== null)('path source with the shared CRI-O and crictl', () => {
  test('install --path-dir records crio (pinns beside it) and crictl; uninstall removes only its record', async () => {
    const statePath = join(work, 'crio-state', 'install.json');
    const before = await stat(CRIO!);
    const { stdout } = await run(process.execPath, [
      CLI,
      'install',
      '--source',
      'path',
      '--path-dir',
      `${dirname(CRIO!)}:${dirname(CRICTL!)}`,
      '--prefix',
      join(work, 'unused-prefix'),
      '--state',
      statePath,
      'cri-o',
      'crictl@1.36.0',
    ]);
    expect(stdout).toContain(`stack up --cri cri-o --crio ${CRIO}`);
    const record = await readInstallRecord(statePath);
    // The versions are the binaries' own, read independently here.
    const crioVersion = /^crio version (\S+)/.exec((await run(CRIO!, ['--version'])).stdout)![1];
    const crictlVersion = /^crictl version v?(\S+)/.exec((await run(CRICTL!, ['--version'])).stdout)![1];
    expect(record.components.map((c) => [c.name, c.version, c.source, c.dir])).toEqual([
      ['cri-o', crioVersion, 'path', null],
      ['crictl', crictlVersion, 'path', null],
    ]);
    const conmon = await run('sh', ['-c', 'command -v conmon']).then(
      (r) => r.stdout.trim(),
      () => null,
    );
    expect(record.crio).toEqual([
      {
        version: crioVersion,
        binary: CRIO,
        pinns: join(dirname(CRIO!), 'pinns'),
        conmon, // Debian's, found on PATH
      },
    ]);
    expect(record.crictl).toBe(CRICTL);
    expect(record.handlers).toEqual([]);
    expect(await readFile(record.stackConfig, 'utf8')).toContain('extraHandlers: []');

    const report = await uninstall(
      realInstallEnv(() => {}),
      statePath,
    );
    expect(report.errors).toEqual([]);
    expect(await readdir(work)).not.toContain('crio-state');
    expect(await readdir(work)).not.toContain('unused-prefix');
    expect((await stat(CRIO!)).mtimeMs).toBe(before.mtimeMs);
  }, 60_000);
});
