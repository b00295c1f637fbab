// The source commit of a module-proxy build, from the answers go gives (`go mod download -json`
// and the `.info` file it names, shaped as the proxy serves them), into the stamps the upstream
// Makefiles set. Expected stamps are written out by hand from those Makefiles.
import { describe, expect, test } from 'vitest';
import { GO_RECIPES, goInvocation, moduleFor, recipeFor } from '../../../src/install/build-recipe.ts';
import {
  moduleOrigin,
  moduleOriginUrl,
  moduleSource,
  proxyInfoUrls,
  stampValues,
  staleBuild,
  type InfoAnswer,
} from '../../../src/install/module-source.ts';

const HASH = 'cb1076646aa3740577fafbf3d914198b7fe8e3f7';
const CONTAINERD_V2 = 'github.com/containerd/containerd/v2';
const INFO_PATH = `/root/go/pkg/mod/cache/download/${CONTAINERD_V2}/@v/v2.1.1.info`;

/** `go mod download -json` as go prints it for a module in the cache (no Origin, here). */
const download = (path: string, version: string) => ({
  Path: path,
  Version: version,
  Info: INFO_PATH,
  GoMod: INFO_PATH.replace(/\.info$/, '.mod'),
  Zip: INFO_PATH.replace(/\.info$/, '.zip'),
  Dir: `/root/go/pkg/mod/${path}@${version}`,
  Sum: 'h1:x',
  GoModSum: 'h1:y',
});
const infoWithOrigin = (version: string) =>
  JSON.stringify({
    Version: version,
    Time: '2025-05-20T17:49:57Z',
    Origin: {
      VCS: 'git',
      URL: 'https://github.com/containerd/containerd',
      Hash: HASH,
      Ref: `refs/tags/${version}`,
    },
  });

const PROXY_URL = `https://proxy.golang.org/${CONTAINERD_V2}/@v/v2.1.1.info`;
/** The module cache's .info, then the proxy's: as build.ts asks them. */
const answers = (cached: string | null, proxy?: string | null): InfoAnswer[] => [
  { source: INFO_PATH, text: cached },
  ...(proxy === undefined ? [] : [{ source: PROXY_URL, text: proxy }]),
];
const NO_ORIGIN = '{"Version":"v2.1.1","Time":"2025-05-20T17:49:57Z"}';

describe('the origin commit of a module version', () => {
  test("from go's answer first; else the cached .info; else the proxy's own .info", () => {
    const d = download(CONTAINERD_V2, 'v2.1.1');
    const found = { commit: HASH, ref: 'refs/tags/v2.1.1', note: null };
    expect(moduleOrigin(d, answers(infoWithOrigin('v2.1.1')))).toEqual(found);
    // A .info cached by a version listing has no Origin; the proxy's answer has it.
    expect(moduleOrigin(d, answers(NO_ORIGIN, infoWithOrigin('v2.1.1')))).toEqual(found);
    const other = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const answered = { ...d, Origin: { VCS: 'git', Hash: other } };
    expect(moduleOrigin(answered, answers(infoWithOrigin('v2.1.1'))).commit).toBe(other);
  });

  test('no answer with an Origin: null, and a note saying where it looked', () => {
    const origin = moduleOrigin(download(CONTAINERD_V2, 'v2.1.1'), answers(NO_ORIGIN, NO_ORIGIN));
    expect(origin.commit).toBeNull();
    expect(origin.note).toBe(
      `${CONTAINERD_V2}@v2.1.1: the source commit is unknown (\`go mod download -json\`: no Origin; ${INFO_PATH}: no Origin; ${PROXY_URL}: no Origin)`,
    );
  });

  test('an unreadable .info, a missing one, or a hash that is no commit id: null with the reason', () => {
    const d = download(CONTAINERD_V2, 'v2.1.1');
    const bad = JSON.stringify({ Version: 'v2.1.1', Origin: { Hash: 'v2.1.1' } });
    const origin = moduleOrigin(d, [...answers('not json', null), { source: 'third', text: bad }]);
    expect(origin.commit).toBeNull();
    expect(origin.note).toBe(
      `${CONTAINERD_V2}@v2.1.1: the source commit is unknown (\`go mod download -json\`: no Origin; ${INFO_PATH}: not JSON; ${PROXY_URL}: no answer; origin hash "v2.1.1" is not a commit id)`,
    );
  });

  test('the proxies of GOPROXY serve <module>/@v/<version>.info; direct and off are none', () => {
    expect(proxyInfoUrls('https://proxy.golang.org,direct', CONTAINERD_V2, 'v2.1.1')).toEqual([PROXY_URL]);
    expect(
      proxyInfoUrls('https://a.example/,https://b.example|off', 'github.com/BurntSushi/toml', 'v1.0.0'),
    ).toEqual([
      'https://a.example/github.com/!burnt!sushi/toml/@v/v1.0.0.info',
      'https://b.example/github.com/!burnt!sushi/toml/@v/v1.0.0.info',
    ]);
    expect(proxyInfoUrls('direct', CONTAINERD_V2, 'v2.1.1')).toEqual([]);
  });
});

describe('the stamps of a module-proxy build carry that commit', () => {
  test('containerd 2.x: version.Revision is the commit and version.Version the tag (no "+unknown")', () => {
    const containerd = GO_RECIPES.containerd!;
    const src = moduleSource(
      CONTAINERD_V2,
      download(CONTAINERD_V2, 'v2.1.1'),
      answers(infoWithOrigin('v2.1.1')),
    );
    expect(src).toMatchObject({
      label: '2.1.1',
      origin: `${CONTAINERD_V2}@v2.1.1`,
      commit: HASH,
      note: null,
    });
    const inv = goInvocation(
      recipeFor(containerd, '2.1.1').flags,
      stampValues(src, { version: '2.1.1', toolchain: 'go1.24.3', module: moduleFor(containerd, '2.1.1') }),
    );
    expect(inv.steps[1]![inv.steps[1]!.indexOf('-ldflags') + 1]).toBe(
      `-X ${CONTAINERD_V2}/version.Version=v2.1.1 -X ${CONTAINERD_V2}/version.Revision=${HASH} -X ${CONTAINERD_V2}/version.Package=${CONTAINERD_V2} -s -w`,
    );
  });

  test('containerd 1.x: the v1 package path', () => {
    const containerd = GO_RECIPES.containerd!;
    const v1 = 'github.com/containerd/containerd';
    const src = moduleSource(v1, download(v1, 'v1.7.24'), answers(infoWithOrigin('v1.7.24')));
    const inv = goInvocation(
      recipeFor(containerd, '1.7.24').flags,
      stampValues(src, { version: '1.7.24', toolchain: 'go1.23.4', module: moduleFor(containerd, '1.7.24') }),
    );
    expect(inv.stamps).toEqual({
      [`${v1}/version.Version`]: 'v1.7.24',
      [`${v1}/version.Revision`]: HASH,
      [`${v1}/version.Package`]: v1,
    });
  });

  test('runc: main.gitCommit is what `git describe --long --always` prints at the tag; unknown, the tag', () => {
    const runc = GO_RECIPES.runc!;
    const path = 'github.com/opencontainers/runc';
    // The proxy's .info of a release may name the commit without the ref: the version is the tag.
    const info = JSON.stringify({ Version: 'v1.2.6', Origin: { VCS: 'git', Hash: HASH } });
    const known = moduleSource(path, download(path, 'v1.2.6'), answers(info));
    const stamps = (src: typeof known) =>
      goInvocation(
        recipeFor(runc, '1.2.6').flags,
        stampValues(src, { version: '1.2.6', toolchain: 'go1.22.12', module: path }),
      ).stamps;
    expect(stamps(known)).toEqual({ 'main.gitCommit': 'v1.2.6-0-gcb107664', 'main.version': '1.2.6' });
    const unknown = moduleSource(path, download(path, 'v1.2.6'), answers('{"Version":"v1.2.6"}'));
    expect(unknown.commit).toBeNull();
    expect(stamps(unknown)).toEqual({ 'main.gitCommit': 'v1.2.6', 'main.version': '1.2.6' });
  });

  test('a pseudo-version names no tag: the commit stamp is the abbreviated hash', () => {
    const path = 'github.com/opencontainers/runc';
    const version = 'v1.3.1-0.20250901000000-cb1076646aa3';
    const src = moduleSource(
      path,
      download(path, version),
      answers(JSON.stringify({ Version: version, Origin: { Hash: HASH } })),
    );
    expect(src.describe).toBe('cb107664');
  });
});

describe('a cached build', () => {
  test('made without the commit its source now names is built again; otherwise reused', () => {
    expect(staleBuild({ commit: null }, { commit: HASH })).toBe(
      `it was built without its source commit, which is now known (${HASH})`,
    );
    expect(staleBuild({ commit: HASH }, { commit: HASH })).toBeNull();
    expect(staleBuild({ commit: null }, { commit: null })).toBeNull();
  });
});

describe('moduleOriginUrl: the repository a bisection clones for its commits', () => {
  const RUNC = 'github.com/opencontainers/runc';
  const runcDownload = { Path: RUNC, Version: 'v1.3.8', Info: '/cache/v1.3.8.info' };
  const info = (origin: Record<string, string> | undefined): InfoAnswer => ({
    source: '/cache/v1.3.8.info',
    text: JSON.stringify({ Version: 'v1.3.8', ...(origin ? { Origin: origin } : {}) }),
  });

  test('takes the Origin URL of go mod download -json, else of the first .info answer naming one', () => {
    const url = 'https://github.com/opencontainers/runc';
    expect(moduleOriginUrl({ ...runcDownload, Origin: { VCS: 'git', URL: url } }, [])).toEqual({
      url,
      note: null,
    });
    const proxy: InfoAnswer = {
      source: 'https://proxy.golang.org/x.info',
      text: JSON.stringify({ Version: 'v1.3.8', Origin: { VCS: 'git', URL: url, Hash: HASH } }),
    };
    expect(moduleOriginUrl(runcDownload, [info(undefined), proxy]).url).toBe(url);
    expect(moduleOriginUrl(runcDownload, [info({ VCS: 'git', URL: 'file:///srv/runc.git' })]).url).toBe(
      'file:///srv/runc.git',
    );
  });

  test('none: a note naming the module, version and each answer it read', () => {
    const r = moduleOriginUrl(runcDownload, [
      info(undefined),
      info({ VCS: 'hg', URL: 'https://example.invalid/runc' }),
      info({ VCS: 'git', URL: '--upload-pack=touch /tmp/x' }),
      { source: 'https://proxy.example/x.info', text: null },
    ]);
    expect(r.url).toBeNull();
    expect(r.note).toBe(
      `${RUNC}@v1.3.8: the source repository is unknown (\`go mod download -json\`: no Origin; /cache/v1.3.8.info: no Origin; ` +
        '/cache/v1.3.8.info: origin "https://example.invalid/runc" is no git URL; /cache/v1.3.8.info: origin "--upload-pack=touch /tmp/x" is no git URL; ' +
        'https://proxy.example/x.info: no answer)',
    );
  });
});
