// Digests of release assets we want to hold to a known value, first in the order of trust (before a
// published checksum file and the release API's digest): e.g. a crun or youki release whose assets
// predate GitHub's digests (June 2025), which nothing else can verify.
// Key `<component>@<version>/<file name>`, value `sha256:<hex>`.
// Add an entry only from a digest you computed over a download you trust (e.g. checked against
// the project's signature); `runtime-bench install --checksums FILE` adds entries for one run.

/** The repository's table of known-good release digests. */
export const PINNED_CHECKSUMS: Readonly<Record<string, string>> = {};
