// What a source hands back after preparing one component in a staging directory.

export interface StagedComponent {
  /** Executable name → path relative to the component's directory (e.g. `root/usr/sbin/runc`). */
  binaries: Record<string, string>;
  /** Where it came from: URLs, or the Debian package and suite. */
  detail: string;
  /** Binaries rewritten to use a private glibc (`bin/runc`), for the record. */
  patched: string[];
}
