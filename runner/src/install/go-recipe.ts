// The shape of a Go build recipe: the flags of one release build and the rules that change them
// per version range. Its own module so that each component's recipe (recipe-*.ts) and the
// collector that turns recipes into go invocations (build-recipe.ts) both import it.
import type { ComponentName } from './components.ts';

/** The go build of one version, with every flag the release build passes. */
export interface GoBuildFlags {
  /** Package built, relative to the module root, and the executable it becomes. */
  package: string;
  output: string;
  /** The Makefile's BUILDTAGS. */
  tags: string[];
  /** Tags only the static build adds (`$(BUILDTAGS) netgo osusergo`). */
  staticTags: string[];
  buildmode: 'pie' | null;
  trimpath: boolean;
  cgo: boolean;
  /** `-X symbol=value` stamps; values are templates of {version} (the VERSION file) and {commit}. */
  stamps: Record<string, string>;
  /** Linker flags besides the stamps. */
  ldflags: string[];
  /** Packages `go generate` runs in before the build (runc 1.2.0 embeds runc-dmz this way). */
  generate: string[];
  /** Debian packages the build links against. */
  debianDeps: string[];
  /** The other executables the release ships, built after the main one with these differences. */
  companions: CompanionBuild[];
}

/** An executable built beside the main one (containerd's ctr and shim): its own package and flags. */
export interface CompanionBuild {
  package: string;
  output: string;
  /** Each absent field is the main binary's. */
  tags?: string[];
  cgo?: boolean;
  buildmode?: 'pie' | null;
  ldflags?: string[];
}

/** One range of versions and what changes there (applied in order over the base). */
export interface RecipeRule {
  since?: string;
  before?: string;
  /** Where upstream does this, for the reader and the record. */
  why: string;
  addTags?: string[];
  removeTags?: string[];
  set?: Partial<Omit<GoBuildFlags, 'tags'>>;
  /** This range cannot be built here: the reason (shown as the error's hint). */
  unsupported?: string;
  /** Known differences from the upstream build that remain (they go into the record). */
  notes?: string[];
}

export interface GoRecipe {
  component: ComponentName;
  /** The module path of major version 0/1; major N ≥ 2 is `<module>/vN` (Go's import versioning). */
  module: string;
  /** The majors released, oldest first: the modules the versions are listed from. */
  majors: number[];
  /** File of the module root holding the version the binary reports; null: the tag is the version. */
  versionFile: string | null;
  /** File whose `ARG GO_VERSION=1.22` names the Go the release was built with. */
  goVersionFile: string | null;
  base: GoBuildFlags;
  rules: RecipeRule[];
  /** Known differences from the release build that every version of it keeps. */
  notes: string[];
  /** The note of a build whose commit the module proxy does not name. */
  noCommitNote: string;
  /**
   * Present when a git tree's own Makefile says how it builds (tree-recipe.ts): a commit between
   * releases is then built as its tree builds, not by the rules of the nearest version. The
   * release script named here holds the make target and EXTRA_LDFLAGS of a release build.
   */
  fromTree?: { releaseScript: string };
  /**
   * How the built binary shows its stamps when `--version` does not print the commit: the
   * arguments, and why a non-zero exit after printing them is expected.
   */
  versionCheck?: { args: string[]; why: string };
}
