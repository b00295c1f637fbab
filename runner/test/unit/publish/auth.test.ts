import { describe, expect, test } from 'vitest';
import {
  authConfigEnv,
  authorizationHeader,
  httpOrigin,
  redact,
  secretForms,
  tokenFromEnv,
} from '../../../src/publish/auth.ts';

describe('token handling', () => {
  test('RB_PUBLISH_TOKEN wins over GITHUB_TOKEN; blank values do not count', () => {
    expect(tokenFromEnv({ RB_PUBLISH_TOKEN: 'a', GITHUB_TOKEN: 'b' })).toEqual({
      source: 'RB_PUBLISH_TOKEN',
      token: 'a',
    });
    expect(tokenFromEnv({ RB_PUBLISH_TOKEN: '  ', GITHUB_TOKEN: 'b' })).toEqual({
      source: 'GITHUB_TOKEN',
      token: 'b',
    });
    expect(tokenFromEnv({})).toBeUndefined();
  });

  test.each([
    ['https://github.com/owner/repo.git', 'https://github.com/'],
    ['https://x-access-token:secret@github.com/owner/repo', 'https://github.com/'],
    ['http://127.0.0.1:8080/repo.git', 'http://127.0.0.1:8080/'],
    ['git@github.com:owner/repo.git', undefined],
    ['ssh://git@github.com/owner/repo.git', undefined],
    ['/tmp/remote.git', undefined],
    ['origin', undefined],
  ])('httpOrigin(%s) = %s', (url, origin) => {
    expect(httpOrigin(url)).toBe(origin);
  });

  test('the header is what actions/checkout sends: basic base64(x-access-token:TOKEN)', () => {
    const header = authorizationHeader('t0k3n');
    const encoded = header.replace('AUTHORIZATION: basic ', '');
    expect(Buffer.from(encoded, 'base64').toString()).toBe('x-access-token:t0k3n');
  });

  test('config env resets then sets the header for each HTTP origin only', () => {
    const env = authConfigEnv(
      't0k3n',
      ['origin', 'https://github.com/o/r.git', 'https://github.com/o/r', '/local'],
      {},
    );
    expect(env).toEqual({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'http.https://github.com/.extraheader',
      GIT_CONFIG_VALUE_1: authorizationHeader('t0k3n'),
    });
  });

  test('config env appends after GIT_CONFIG_* variables the caller already set', () => {
    const env = authConfigEnv('t', ['https://example.test/r'], { GIT_CONFIG_COUNT: '3' });
    expect(env.GIT_CONFIG_COUNT).toBe('5');
    expect(Object.keys(env).sort()).toEqual([
      'GIT_CONFIG_COUNT',
      'GIT_CONFIG_KEY_3',
      'GIT_CONFIG_KEY_4',
      'GIT_CONFIG_VALUE_3',
      'GIT_CONFIG_VALUE_4',
    ]);
  });

  test('no HTTP remote, no variables: the token is not handed to git at all', () => {
    expect(authConfigEnv('t', ['/tmp/remote.git', 'git@github.com:o/r.git'])).toEqual({});
  });

  test('redact masks the token, its base64 form and URL credentials', () => {
    const secrets = secretForms('t0k3n');
    const header = authorizationHeader('t0k3n');
    const text = `token t0k3n, header ${header}, url https://user:pw@host/x and http://t0k3n@h/`;
    const out = redact(text, secrets);
    expect(out).not.toContain('t0k3n');
    expect(out).not.toContain(header.slice(header.lastIndexOf(' ') + 1));
    expect(out).not.toContain('user:pw');
    expect(out).toContain('https://***@host/x');
  });
});
