// What a source hands back after preparing one component in a staging directory.
import type { AssetVerification } from './verification.ts';

export interface StagedComponent {
  /** Executable name → path relative to the component's directory (e.g. `root/usr/sbin/runc`). */
  binaries: Record<string, string>;
  /** Where it came from: URLs, or the Debian package and suite. */
  detail: string;
  /** Binaries rewritten to use a private glibc (`bin/runc`), for the record. */
  patched: string[];
  /** Release source: how each download was verified (pinned, checksum file, release-api digest). */
  verification?: AssetVerification[];
}
