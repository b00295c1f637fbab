// What a build from source is asked for and what it gives back: shared by the Go builds (build.ts)
// and crun's (crun-build.ts).
import type { ComponentBuild } from '@runtime-bench/schemas';
import type { BuildSource } from './build-recipe.ts';
import type { ComponentName } from './components.ts';

export interface BuildRequest {
  component: ComponentName;
  source: BuildSource;
  /**
   * go: a release (`1.2.0`), a pseudo-version or a commit the proxy serves. git: a ref of gitDir.
   * debian-source: an upstream version a suite's source package has (`1.21`), or `latest`.
   */
  version: string;
  /** git source: the checkout to build from. */
  gitDir?: string;
  prefix: string;
  /** Use this Go toolchain (`go1.23.4`, `local`) instead of the release's. */
  toolchain?: string;
  /** debian-source: the suites whose Sources indexes are searched, in order, and the archive. */
  suites?: string[];
  debianMirror?: string;
}

export interface BuildResult {
  /** The built main executable. */
  binary: string;
  /** Every executable built (the main one and its companions): name → path under bin/. */
  binaries: Record<string, string>;
  /** `<prefix>/<component>/<version>+<toolchain>`. */
  dir: string;
  /** The version it was built as (a release, a pseudo-version, or `<VERSION>-g<hash>` for git). */
  version: string;
  record: ComponentBuild;
  /** True when the cache had it. */
  cached: boolean;
}
