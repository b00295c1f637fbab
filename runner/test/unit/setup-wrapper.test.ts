// The `runtime-bench` wrapper scripts/setup.sh puts on PATH: written by the same shell function
// setup.sh calls (sourced from scripts/setup-lib.sh, never by running setup.sh), then run from
// another directory against this checkout reached through a path with a space and a quote.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI } from '../support/cli.ts';

const REPO = join(import.meta.dirname, '../../..');
const SCRIPTS = join(REPO, 'scripts');

function writeWrapper(dest: string, repo: string): void {
  execFileSync('bash', [
    '-c',
    'source "$1"; write_cli_wrapper "$2" "$3" "$4"',
    'bash',
    join(SCRIPTS, 'setup-lib.sh'),
    dest,
    repo,
    process.execPath,
  ]);
}

describe('the runtime-bench wrapper', { timeout: 60_000 }, () => {
  test('setup.sh installs it at /usr/local/bin/runtime-bench, for this checkout, with the node it set up', () => {
    const setup = readFileSync(join(SCRIPTS, 'setup.sh'), 'utf8');
    expect(setup).toMatch(
      /^write_cli_wrapper \/usr\/local\/bin\/runtime-bench "\$repo" "\$\(command -v node\)"$/m,
    );
  });

  test('runs this checkout from any directory, passing arguments through unchanged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-wrapper-'));
    const repo = join(dir, "my repo's");
    symlinkSync(REPO, repo);
    const wrapper = join(dir, 'bin', 'runtime-bench');
    mkdirSync(join(dir, 'bin'));
    writeWrapper(wrapper, repo);
    expect(statSync(wrapper).mode & 0o777).toBe(0o755);
    expect(readFileSync(wrapper, 'utf8')).toMatch(/^#!\/bin\/sh\n/);

    const elsewhere = mkdtempSync(join(tmpdir(), 'rb-cwd-'));
    const direct = execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
    const viaWrapper = spawnSync(wrapper, ['--version'], {
      cwd: elsewhere,
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(viaWrapper.status).toBe(0);
    expect(viaWrapper.stdout).toBe(direct);

    // An argument with a space and a quote arrives as one argument.
    const config = join(elsewhere, "odd name's.yaml");
    writeFileSync(config, 'runs: 3\n');
    const validate = spawnSync(wrapper, ['validate', config], { cwd: elsewhere, encoding: 'utf8' });
    expect(validate.stderr).toBe('');
    expect(validate.stdout).toBe(`ok       ${config} (config)\n`);
    expect(validate.status).toBe(0);
  });

  test('its exit code is the CLI exit code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-wrapper-'));
    const wrapper = join(dir, 'runtime-bench');
    writeWrapper(wrapper, REPO);
    expect(spawnSync(wrapper, ['no-such-command'], { encoding: 'utf8' }).status).toBe(2);
  });
});
