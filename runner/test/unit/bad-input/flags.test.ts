// Flags that were accepted or mishandled: the real CLI with real git over smart HTTP (git
// http-backend on 127.0.0.1), real directories, exit 2 and the flag named with the fix.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli as runCliHere } from '../../support/cli.ts';
import {
  createSandbox,
  resultNumber,
  runCli,
  startSmartHttpServer,
  type Sandbox,
  type SmartHttpServer,
} from '../publish/helpers.ts';

const noTrace = /\n\s+at .*:\d+:\d+\)?\n/;

describe('publish flags', { timeout: 90_000 }, () => {
  let box: Sandbox;
  let work: string;
  let server: SmartHttpServer;
  const token = `rbtest${Math.random().toString(36).slice(2)}`;

  beforeEach(async () => {
    box = await createSandbox();
    work = await box.clone('work');
    await box.sh(box.bare, 'config', 'http.receivepack', 'true');
    // What git sends for the user info of https://x-access-token:<token>@host/…
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    server = await startSmartHttpServer(box.root, `Basic ${basic}`, box.env);
  });
  afterEach(async () => {
    await server.close();
    await box.cleanup();
  });

  test('--remote with user:token@ in the URL: masked on stdout as well as stderr', async () => {
    const remote = `${server.url.replace('http://', `http://x-access-token:${token}@`)}remote.git`;
    const file = await box.writeResult('one.json', resultNumber(1));
    const r = await runCli(['publish', '--remote', remote, file], { cwd: work, env: box.env });
    expect(r.stderr).not.toContain(token);
    expect(r.stdout).not.toContain(token);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /published 1 run\(s\) to http:\/\/\*\*\*@127\.0\.0\.1:\d+\/remote\.git\/benchmark-data/,
    );
    // It really went there.
    expect(await box.sh(box.bare, 'rev-parse', '--verify', 'refs/heads/benchmark-data')).toMatch(
      /^[0-9a-f]{40}$/,
    );
  });

  test.each([
    ['publish', (file: string) => ['publish', '--branch', 'refs/heads/main', file]],
    ['data verify', () => ['data', 'verify', '--branch', 'refs/heads/main']],
  ])('%s --branch refs/heads/main is refused with the name to give', async (_what, args) => {
    const file = await box.writeResult('one.json', resultNumber(1));
    const r = await runCli(args(file), { cwd: work, env: box.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'runtime-bench: --branch "refs/heads/main" is a ref, not a branch name (it would become refs/heads/refs/heads/main)',
    );
    expect(r.stderr).toContain('hint: give the name alone, e.g. --branch main');
    expect(r.stderr).not.toMatch(noTrace);
    expect(await box.sh(box.bare, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
  });
});

describe('other flags', () => {
  test('version --stack ../../x is refused like a stack name', async () => {
    const r = await runCliHere(['version', '--stack', '../../x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('runtime-bench: --stack "../../x" is not a valid stack name');
    expect(r.stderr).toContain('hint: use lower-case letters, digits and "-"');
    expect(r.stderr).not.toMatch(noTrace);
  }, 60_000);

  test('install --checksums /etc/passwd: the flag named, the file not echoed, nothing installed', async () => {
    const prefix = join(mkdtempSync(join(tmpdir(), 'rb-prefix-')), 'p');
    const r = await runCliHere(['install', '--checksums', '/etc/passwd', '--prefix', prefix, 'runc@1.3.6']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('runtime-bench: --checksums /etc/passwd: not valid JSON');
    expect(r.stderr).toMatch(/^hint: the file is a JSON object/m);
    expect(r.stderr).not.toContain(readFileSync('/etc/passwd', 'utf8').split('\n')[0]!);
    expect(existsSync(prefix)).toBe(false);
  }, 60_000);

  test('install --list --prefix of a missing directory says so', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'rb-prefix-')), 'nonexistent');
    const r = await runCliHere(['install', '--list', '--prefix', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`runtime-bench: --prefix ${missing} does not exist`);
    expect(r.stderr).toContain('hint: pass the --prefix that `install` was given');
    expect(r.stderr).not.toMatch(noTrace);
  }, 60_000);
});
