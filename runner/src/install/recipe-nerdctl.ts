// How nerdctl's releases are built, as data: `make binaries` as `make artifacts` runs it for the
// release tarballs (Makefile 2.x): CGO_ENABLED=0, no build tags, `-ldflags "-s -w -X
// …/pkg/version.Version=$(VERSION) -X …/pkg/version.Revision=$(REVISION)"` with VERSION
// `git describe --tags` (v2.1.3) and REVISION `git rev-parse HEAD`; no -trimpath. Go from the
// Dockerfile's ARG GO_VERSION.
import type { GoRecipe } from './go-recipe.ts';

export const NERDCTL: GoRecipe = {
  component: 'nerdctl',
  module: 'github.com/containerd/nerdctl',
  majors: [2],
  versionFile: null,
  goVersionFile: 'Dockerfile',
  base: {
    package: './cmd/nerdctl',
    output: 'nerdctl',
    tags: [],
    staticTags: [],
    buildmode: null,
    trimpath: false,
    cgo: false,
    stamps: {
      // VERSION is `git describe --match 'v[0-9]*' --dirty='.m' --always --tags`: the tag at a release.
      'github.com/containerd/nerdctl/v2/pkg/version.Version': '{tag}',
      'github.com/containerd/nerdctl/v2/pkg/version.Revision': '{revision}',
    },
    ldflags: ['-s', '-w'],
    generate: [],
    debianDeps: [],
    companions: [],
  },
  rules: [
    {
      before: '2.0.0',
      why: 'nerdctl 1.x is the module github.com/containerd/nerdctl (no /v2), which this recipe does not fetch',
      unsupported: 'only nerdctl 2.x is buildable here (module github.com/containerd/nerdctl/v2)',
    },
  ],
  notes: [],
  noCommitNote:
    'the module proxy does not say which commit this tag is: version.Revision is left empty (nerdctl version prints no commit)',
  versionCheck: {
    // `nerdctl --version` prints no commit; `version` prints the client's stamps, then exits 1
    // because no containerd answers at the address given.
    args: [
      '--address',
      'unix:///nonexistent/containerd.sock',
      'version',
      '--format',
      '{{.Client.Version}} {{.Client.GitCommit}}',
    ],
    why: 'nerdctl version exits 1 when no containerd answers, after printing the client part',
  },
};
