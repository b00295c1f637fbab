import { describe, expect, test } from 'vitest';
import { RbError } from '@runtime-bench/runner';
import { installSource, readInputs, thresholdPercent } from '../src/inputs.ts';
import { installSpecs } from '../src/cri.ts';
import { sitePageUrl } from '@runtime-bench/runner/site-paths';

describe('inputs', () => {
  test('defaults when nothing is set (the runner sends unset inputs as empty strings)', () => {
    const i = readInputs({ INPUT_CRI: '', INPUT_PUBLISH: '' });
    expect(i).toMatchObject({
      cri: 'containerd',
      'cri-version': 'latest',
      source: '',
      'regression-threshold': '5%',
      publish: false,
      'stack-name': 'action',
    });
  });

  test('both the runner form (INPUT_CRI-VERSION) and ours (INPUT_CRI_VERSION) are read', () => {
    expect(readInputs({ 'INPUT_CRI-VERSION': '1.7.24' })['cri-version']).toBe('1.7.24');
    expect(readInputs({ INPUT_CRI_VERSION: '2.1.9' })['cri-version']).toBe('2.1.9');
  });

  test('booleans are "true"/"false" only', () => {
    expect(readInputs({ INPUT_PUBLISH: 'True' }).publish).toBe(true);
    expect(() => readInputs({ INPUT_PUBLISH: 'yes' })).toThrow(/action inputs: publish: /);
  });

  test('a bad value names the input', () => {
    const error = (() => {
      try {
        readInputs({ INPUT_SOURCE: 'brew', INPUT_RUNS: 'ten' });
      } catch (e) {
        return e;
      }
    })() as RbError;
    expect(error).toBeInstanceOf(RbError);
    expect(error.message).toMatch(/action inputs: source: /);
    expect(error.message).toMatch(/action inputs: runs: runs is a whole number/);
  });

  test('install specs: CRI, OCI runtimes (any separator), crictl', () => {
    const i = readInputs({
      INPUT_CRI_VERSION: '1.7.24',
      INPUT_OCI_RUNTIMES: 'runc@1.3.6,\ncrun@1.21',
      INPUT_CRICTL_VERSION: '1.31.1',
    });
    expect(installSpecs(i)).toEqual(['containerd@1.7.24', 'runc@1.3.6', 'crun@1.21', 'crictl@1.31.1']);
  });

  test('the path source drops "latest": it takes whatever is installed', () => {
    const i = readInputs({ INPUT_SOURCE: 'path', INPUT_OCI_RUNTIMES: 'runc@latest crun' });
    expect(installSpecs(i)).toEqual(['containerd', 'runc', 'crun']);
  });

  test('source: release archives for an install, the Go module proxy (which lists versions) for a sweep, unless set', () => {
    expect(installSource(readInputs({}))).toBe('release');
    expect(installSource(readInputs({}), true)).toBe('go');
    expect(installSource(readInputs({ INPUT_SOURCE: 'distro' }), true)).toBe('distro');
  });

  test('regression-threshold carries its unit; a bare number still reads as percent, with a deprecation', () => {
    expect(
      thresholdPercent(readInputs({ INPUT_REGRESSION_THRESHOLD: '7.5%' })['regression-threshold']),
    ).toEqual({
      percent: '7.5',
      deprecation: null,
    });
    const bare = thresholdPercent(readInputs({ INPUT_REGRESSION_THRESHOLD: '5' })['regression-threshold']);
    expect(bare.percent).toBe('5');
    expect(bare.deprecation).toMatch(/^regression-threshold: '5' has no unit and is read as 5%; write '5%'/);
    expect(() => readInputs({ INPUT_REGRESSION_THRESHOLD: '5 percent' })).toThrow(
      /regression-threshold: a percentage such as 5%/,
    );
  });

  test('site-url is an http(s) address, and every accepted one makes page links', () => {
    const path = 'benchmark/operations.container.lifecycle/startcontainer/';
    for (const url of [
      'https://org.github.io/runtime-bench',
      'http://127.0.0.1:4321/',
      'https://bench.example.org/x/y/',
    ])
      expect(sitePageUrl(readInputs({ INPUT_SITE_URL: url })['site-url'], path)).toMatch(
        /^https?:\/\/.+\/startcontainer\/$/,
      );
    for (const bad of ['org.github.io/runtime-bench', 'ftp://host/', 'https://', 'javascript:alert(1)'])
      expect(() => readInputs({ INPUT_SITE_URL: bad }), bad).toThrow(
        /action inputs: site-url: an http\(s\) address/,
      );
    expect(readInputs({})['site-url']).toBe('');
  });

  test('alert-issue is off by default; github-token is read under either name', () => {
    expect(readInputs({})['alert-issue']).toBe(false);
    expect(readInputs({ INPUT_ALERT_ISSUE: 'true', 'INPUT_GITHUB-TOKEN': 't' })).toMatchObject({
      'alert-issue': true,
      'github-token': 't',
    });
  });
});
