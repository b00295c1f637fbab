// How containerd's releases are built, as data: read from the Makefile, Makefile.linux and
// .github/workflows/release/Dockerfile of the module zips the Go module proxy serves (v1.7.x,
// v2.0.13 … v2.4.2). The release tarball (`make release` in that Dockerfile, CGO_ENABLED=1) holds
// containerd and ctr as PIE binaries linked against glibc, and the runc shim static without cgo.
import type { GoRecipe } from './go-recipe.ts';

/** `-X $(PKG)/version.Version=$(VERSION) -X …Revision=$(REVISION) -X …Package=$(PACKAGE)`. */
const STAMPS = {
  '{module}/version.Version': '{tag}',
  '{module}/version.Revision': '{revision}',
  '{module}/version.Package': '{module}',
};

export const CONTAINERD: GoRecipe = {
  component: 'containerd',
  module: 'github.com/containerd/containerd',
  majors: [1, 2],
  // The version is the tag: the release sets VERSION=$RELEASE_VER (`v2.0.14`).
  versionFile: null,
  goVersionFile: '.github/workflows/release/Dockerfile',
  base: {
    // BUILD_BINARY: go build $(GO_GCFLAGS) -o bin/containerd $(GO_LDFLAGS) $(GO_TAGS) ./cmd/containerd
    package: './cmd/containerd',
    output: 'containerd',
    // GO_BUILDTAGS += urfave_cli_no_docs (no STATIC, no GODEBUG for `make release`)
    tags: ['urfave_cli_no_docs'],
    staticTags: [],
    // Makefile.linux: GO_GCFLAGS += -buildmode=pie unless STATIC (amd64, arm64)
    buildmode: 'pie',
    trimpath: true,
    cgo: true,
    stamps: STAMPS,
    // EXTRA_LDFLAGS += -s -w (GODEBUG unset)
    ldflags: ['-s', '-w'],
    generate: [],
    // cgo: github.com/containerd/btrfs/v2 includes <linux/btrfs.h> (the release's base image has
    // them too); its Dockerfile's libseccomp-dev and btrfs-progs are linked by nothing built here.
    debianDeps: ['linux-libc-dev'],
    companions: [
      { package: './cmd/ctr', output: 'ctr' },
      {
        // bin/containerd-shim-runc-v2: CGO_ENABLED=$(SHIM_CGO_ENABLED)=0, $(SHIM_GO_LDFLAGS), no GO_GCFLAGS
        package: './cmd/containerd-shim-runc-v2',
        output: 'containerd-shim-runc-v2',
        cgo: false,
        buildmode: null,
        ldflags: ['-extldflags', '-static', '-s', '-w'],
      },
    ],
  },
  rules: [
    {
      since: '2.0.0-beta.0',
      why: 'Makefile 2.x: SHIM_GO_BUILDTAGS := $(GO_BUILDTAGS) no_grpc for containerd-shim-runc-v2 (read in 2.0.13 … 2.4.2)',
      set: {
        companions: [
          { package: './cmd/ctr', output: 'ctr' },
          {
            package: './cmd/containerd-shim-runc-v2',
            output: 'containerd-shim-runc-v2',
            tags: ['urfave_cli_no_docs', 'no_grpc'],
            cgo: false,
            buildmode: null,
            ldflags: ['-extldflags', '-static', '-s', '-w'],
          },
        ],
      },
    },
  ],
  notes: [
    "containerd and ctr link this host's glibc dynamically, as the release links Ubuntu 20.04's (its Dockerfile's BASE_IMAGE)",
    "go build -trimpath instead of the Makefile's -gcflags=-trimpath=$GOPATH/src: file names inside the binary differ, the code does not",
    'containerd-stress and the man pages of `make release` are not built (nothing here runs them)',
  ],
  // Its Makefile stamps `git rev-parse HEAD`; nothing else names the commit, so none is invented.
  noCommitNote:
    'the module proxy does not say which commit this tag is: version.Revision is left empty (containerd --version prints no revision)',
};
