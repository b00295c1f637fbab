// The catalogue of installable components: what each is, where each source finds it, and which
// files of it matter. Pure data plus the parser of `name@version` specs.
import { RbError } from '../errors.ts';

/**
 * Where the installer takes a component from: an upstream release, a Debian package, what is on
 * the machine, or a build from source (the Go module proxy, crates.io, a local git checkout, or
 * upstream's release tarball from the Debian archive's source packages).
 */
export const SOURCES = ['release', 'distro', 'path', 'go', 'cargo', 'git', 'debian-source'] as const;
export type Source = (typeof SOURCES)[number];

export type ComponentName =
  | 'containerd'
  | 'cri-o'
  | 'runc'
  | 'crun'
  | 'runsc'
  | 'youki'
  | 'kata'
  | 'crictl'
  | 'nerdctl'
  | 'cni-plugins'
  | 'sysbench';

export type Role = 'cri' | 'oci' | 'tool' | 'workload';

/** An upstream release artefact: a URL template plus how to verify and unpack it. */
export interface ReleaseAsset {
  /** `{version}`, `{arch}` (Go style: amd64, arm64) and `{uarch}` (uname style: x86_64, aarch64) are replaced. */
  url: string;
  /**
   * A published checksum file (same placeholders, plus `{url}`); absent: a pin verifies, else, for a
   * GitHub-hosted sha256 asset, the digest the release API reports (verification.ts).
   */
  checksumUrl?: string;
  algorithm: 'sha256' | 'sha512';
  /** `binary`: the download is the executable itself, installed under `bin/<as>`. */
  kind: 'tar.gz' | 'binary';
  /** For `binary` assets: the file name under bin/. */
  as?: string;
}

export interface ComponentInfo {
  name: ComponentName;
  role: Role;
  /** Executables and where each lies in a release archive / in the unpacked Debian package. */
  binaries: { name: string; release?: string; distro?: string }[];
  /** Extra CRI-facing executables (shims) that must sit beside the main one. */
  release?: ReleaseAsset[];
  /** Debian package name; absent when Debian has no usable package. */
  debianPackage?: string;
  /** Why a source cannot provide this component (shown as the hint of the error). */
  unsupported?: Partial<Record<Source, string>>;
  /** Arguments that make the main binary print its version. */
  versionArgs: string[];
}

const GH = 'https://github.com';

/**
 * Release URLs follow each project's published layout. Checksum files are used where upstream
 * publishes them; crun and youki publish none, so they verify against a pin or, failing one, the
 * digest GitHub's release API reports for the asset (null for uploads before June 2025).
 */
export const COMPONENTS: Record<ComponentName, ComponentInfo> = {
  containerd: {
    name: 'containerd',
    role: 'cri',
    binaries: [
      { name: 'containerd', release: 'bin/containerd', distro: 'usr/bin/containerd' },
      {
        name: 'containerd-shim-runc-v2',
        release: 'bin/containerd-shim-runc-v2',
        distro: 'usr/bin/containerd-shim-runc-v2',
      },
      { name: 'ctr', release: 'bin/ctr', distro: 'usr/bin/ctr' },
    ],
    release: [
      {
        url: `${GH}/containerd/containerd/releases/download/v{version}/containerd-{version}-linux-{arch}.tar.gz`,
        checksumUrl: '{url}.sha256sum',
        algorithm: 'sha256',
        kind: 'tar.gz',
      },
    ],
    debianPackage: 'containerd',
    versionArgs: ['--version'],
  },
  'cri-o': {
    name: 'cri-o',
    role: 'cri',
    binaries: [
      { name: 'crio', release: 'cri-o/bin/crio' },
      { name: 'conmon', release: 'cri-o/bin/conmon' },
      { name: 'pinns', release: 'cri-o/bin/pinns' },
    ],
    release: [
      {
        url: 'https://storage.googleapis.com/cri-o/artifacts/cri-o.{arch}.v{version}.tar.gz',
        checksumUrl: '{url}.sha256sum',
        algorithm: 'sha256',
        kind: 'tar.gz',
      },
    ],
    unsupported: { distro: 'Debian has no cri-o package; use source "release" or "path"' },
    versionArgs: ['--version'],
  },
  runc: {
    name: 'runc',
    role: 'oci',
    binaries: [{ name: 'runc', release: 'runc', distro: 'usr/sbin/runc' }],
    release: [
      {
        url: `${GH}/opencontainers/runc/releases/download/v{version}/runc.{arch}`,
        checksumUrl: `${GH}/opencontainers/runc/releases/download/v{version}/runc.sha256sum`,
        algorithm: 'sha256',
        kind: 'binary',
        as: 'runc',
      },
    ],
    debianPackage: 'runc',
    versionArgs: ['--version'],
  },
  crun: {
    name: 'crun',
    role: 'oci',
    binaries: [{ name: 'crun', release: 'crun', distro: 'usr/bin/crun' }],
    release: [
      {
        url: `${GH}/containers/crun/releases/download/{version}/crun-{version}-linux-{arch}`,
        algorithm: 'sha256',
        kind: 'binary',
        as: 'crun',
      },
    ],
    debianPackage: 'crun',
    versionArgs: ['--version'],
  },
  runsc: {
    name: 'runsc',
    role: 'oci',
    binaries: [
      { name: 'runsc', release: 'runsc' },
      { name: 'containerd-shim-runsc-v1', release: 'containerd-shim-runsc-v1' },
    ],
    release: [
      {
        url: 'https://storage.googleapis.com/gvisor/releases/release/{version}/{uarch}/runsc',
        checksumUrl: '{url}.sha512',
        algorithm: 'sha512',
        kind: 'binary',
        as: 'runsc',
      },
      {
        url: 'https://storage.googleapis.com/gvisor/releases/release/{version}/{uarch}/containerd-shim-runsc-v1',
        checksumUrl: '{url}.sha512',
        algorithm: 'sha512',
        kind: 'binary',
        as: 'containerd-shim-runsc-v1',
      },
    ],
    unsupported: {
      distro:
        "Debian's runsc has no containerd-shim-runsc-v1 and fails on kernel 6.x; use source release, or build it (docs/install.md, Sources)",
    },
    versionArgs: ['--version'],
  },
  youki: {
    name: 'youki',
    role: 'oci',
    binaries: [{ name: 'youki', release: 'youki' }],
    release: [
      {
        url: `${GH}/youki-dev/youki/releases/download/v{version}/youki-{version}-{uarch}-gnu.tar.gz`,
        algorithm: 'sha256',
        kind: 'tar.gz',
      },
    ],
    unsupported: {
      distro: 'Debian has no youki package; use source release, or `cargo install youki` and source path',
    },
    versionArgs: ['--version'],
  },
  kata: {
    name: 'kata',
    role: 'oci',
    binaries: [{ name: 'containerd-shim-kata-v2' }],
    unsupported: {
      release: 'kata needs a VM-capable host and its own shim config; not installable by runtime-bench yet',
      distro: 'kata needs a VM-capable host and its own shim config; not installable by runtime-bench yet',
    },
    versionArgs: ['--version'],
  },
  crictl: {
    name: 'crictl',
    role: 'tool',
    binaries: [{ name: 'crictl', release: 'crictl' }],
    release: [
      {
        url: `${GH}/kubernetes-sigs/cri-tools/releases/download/v{version}/crictl-v{version}-linux-{arch}.tar.gz`,
        checksumUrl: '{url}.sha256',
        algorithm: 'sha256',
        kind: 'tar.gz',
      },
    ],
    unsupported: { distro: 'Debian has no crictl package; use source release or path' },
    versionArgs: ['--version'],
  },
  nerdctl: {
    name: 'nerdctl',
    role: 'tool',
    binaries: [{ name: 'nerdctl' }],
    // Built from source: the Go module proxy (2.0.4, 2.1.2), or a checkout for the versions whose
    // cmd/nerdctl imports the nested module mod/tigron that the proxy's zip leaves out (2.1.3).
    unsupported: {
      release:
        'nerdctl is built from source: runtime-bench install --source go nerdctl@2.1.2 (or --source git --git-dir <nerdctl checkout> nerdctl@v2.1.3)',
      distro:
        'Debian has no nerdctl package; runtime-bench install --source go nerdctl@2.1.2 (or --source git --git-dir <nerdctl checkout> nerdctl@v2.1.3)',
    },
    versionArgs: ['--version'],
  },
  'cni-plugins': {
    name: 'cni-plugins',
    role: 'tool',
    binaries: [
      { name: 'bridge', release: 'bridge', distro: 'usr/lib/cni/bridge' },
      { name: 'host-local', release: 'host-local', distro: 'usr/lib/cni/host-local' },
      { name: 'loopback', release: 'loopback', distro: 'usr/lib/cni/loopback' },
      { name: 'portmap', release: 'portmap', distro: 'usr/lib/cni/portmap' },
    ],
    release: [
      {
        url: `${GH}/containernetworking/plugins/releases/download/v{version}/cni-plugins-linux-{arch}-v{version}.tgz`,
        checksumUrl: '{url}.sha256',
        algorithm: 'sha256',
        kind: 'tar.gz',
      },
    ],
    debianPackage: 'containernetworking-plugins',
    versionArgs: ['--version'],
  },
  sysbench: {
    name: 'sysbench',
    role: 'workload',
    binaries: [{ name: 'sysbench', distro: 'usr/bin/sysbench' }],
    debianPackage: 'sysbench',
    unsupported: { release: 'sysbench publishes no binaries; use source distro or path' },
    versionArgs: ['--version'],
  },
};

export const OCI_RUNTIMES: readonly ComponentName[] = ['runc', 'crun', 'runsc', 'youki', 'kata'];

/** One requested component: `runc@1.3.6`, `runc@latest`, `runc` (path: whatever is there), `runc@/usr/sbin/runc`. */
export interface ComponentSpec {
  name: ComponentName;
  /** A version, `latest`, or null (path source: any). */
  version: string | null;
  /** Path source only: an explicit executable. */
  path: string | null;
}

/** Parses `name@version`; the error names the spec and lists the known components. */
/**
 * Whether `text` can be a version: what parseSpec takes after "@". A version names a directory
 * under the install prefix, so ".." never is one.
 */
export function isVersionText(text: string): boolean {
  return VERSION_CHARS.test(text) && !text.includes('..');
}

/** A version's characters; at most 128 of them (a Go pseudo-version has 34), as it names a directory. */
const VERSION_CHARS = /^[0-9A-Za-z][0-9A-Za-z.+~_-]{0,127}$/;

export function parseSpec(text: string): ComponentSpec {
  const trimmed = text.trim();
  const at = trimmed.indexOf('@');
  const rawName = at < 0 ? trimmed : trimmed.slice(0, at);
  const rest = at < 0 ? '' : trimmed.slice(at + 1);
  const name = rawName === 'crio' ? 'cri-o' : rawName;
  // Own keys only: `constructor` or `toString` is in every object.
  if (!Object.hasOwn(COMPONENTS, name)) {
    throw new RbError(
      'USAGE_COMPONENT',
      `"${text}": unknown component "${rawName}"`,
      `known components: ${Object.keys(COMPONENTS).join(', ')}`,
    );
  }
  if (at >= 0 && rest === '') {
    throw new RbError(
      'USAGE_COMPONENT',
      `"${text}": nothing after "@"`,
      'write name@version, e.g. runc@1.3.6',
    );
  }
  if (rest.startsWith('/')) return { name: name as ComponentName, version: null, path: rest };
  if (rest !== '' && !VERSION_CHARS.test(rest)) {
    throw new RbError(
      'USAGE_COMPONENT',
      `"${text}": "${rest}" is not a version`,
      'e.g. runc@1.3.6 or runc@latest: letters, digits and . + ~ _ -, at most 128',
    );
  }
  // No version has "..": it is a range (`sweep runc@1.1.5..1.4.3` alone takes one) cut short, or
  // a path climbing out of the install prefix, where the version names a directory.
  if (rest.includes('..'))
    throw new RbError(
      'USAGE_COMPONENT',
      `"${text}": "${rest}" is not a version`,
      `a range is written with both ends, e.g. ${name}@1.1.5..1.4.3, and only sweep takes one`,
    );
  return { name: name as ComponentName, version: rest === '' ? null : rest, path: null };
}

/** Parses a list written one per line, or separated by commas or spaces (as action inputs are). */
export function parseSpecList(text: string): ComponentSpec[] {
  return text
    .split(/[\s,]+/)
    .filter((s) => s !== '')
    .map(parseSpec);
}

/** The CRI handler name for an OCI runtime at a version, e.g. `runc-1.3.6`. */
export function handlerName(name: string, version: string): string {
  return `${name}-${version}`.toLowerCase().replace(/[^a-z0-9._-]/g, '-');
}

/** Go-style and uname-style architecture names of this Node process's platform. */
export function archNames(nodeArch: string = process.arch): {
  arch: string;
  uarch: string;
  multiarch: string;
} {
  switch (nodeArch) {
    case 'x64':
      return { arch: 'amd64', uarch: 'x86_64', multiarch: 'x86_64-linux-gnu' };
    case 'arm64':
      return { arch: 'arm64', uarch: 'aarch64', multiarch: 'aarch64-linux-gnu' };
    default:
      throw new RbError(
        'INSTALL_ARCH',
        `architecture ${nodeArch} is not supported by the installer`,
        'use x64 or arm64',
      );
  }
}
