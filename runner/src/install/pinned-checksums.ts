// Digests of release assets whose projects publish no checksum file (crun, youki), or that we want
// to hold to a known value. Key `<component>@<version>/<file name>`, value `sha256:<hex>`.
// Add an entry only from a digest you computed over a download you trust (e.g. checked against
// the project's signature); `runtime-bench install --checksums FILE` adds entries for one run.

/** The repository's table of known-good release digests. */
export const PINNED_CHECKSUMS: Readonly<Record<string, string>> = {};
