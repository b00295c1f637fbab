// Pure helpers for Debian package metadata: versions, dependency fields, glibc requirements.
import { compareVersions } from '../stack/versions.ts';

/**
 * The upstream part of a Debian version: no epoch, no Debian revision, no repack suffix
 * (`1:1.6.20~ds1-1+deb12u1` → `1.6.20`, `1.3.6+ds1-1` → `1.3.6`, `1.28-1` → `1.28`).
 */
export function upstreamVersion(debianVersion: string): string {
  let v = debianVersion.replace(/^\d+:/, '');
  const dash = v.lastIndexOf('-');
  if (dash > 0) v = v.slice(0, dash);
  const cut = v.search(/[+~]/);
  if (cut > 0 && v.slice(0, cut).includes('.')) v = v.slice(0, cut);
  return v;
}

/** Package names of a Depends/Pre-Depends field (the first of each `a | b` alternative). */
export function dependencyNames(field: string): string[] {
  return field
    .split(',')
    .map(
      (part) =>
        part
          .split('|')[0]!
          .trim()
          .split(/[\s(:]/)[0]!,
    )
    .filter((n) => n !== '');
}

/** One `apt-cache madison` line: `runc | 1.3.6+ds1-1 | http://… sid/main amd64 Packages`. */
export interface MadisonEntry {
  package: string;
  version: string;
}

export function parseMadison(text: string): MadisonEntry[] {
  const out: MadisonEntry[] = [];
  for (const line of text.split('\n')) {
    const cols = line.split('|').map((c) => c.trim());
    if (cols.length >= 3 && cols[2]!.includes('Packages')) out.push({ package: cols[0]!, version: cols[1]! });
  }
  return out;
}

/** Fields of the first stanza of `apt-cache show` output. */
export function parseControlStanza(text: string): Record<string, string> {
  return parseControlStanzas(text)[0] ?? {};
}

/**
 * Every stanza of control-file text (`apt-cache showsrc` prints one per source version); a
 * continuation line is appended to its field after a newline, trimmed (`Checksums-Sha256` lists).
 */
export function parseControlStanzas(text: string): Record<string, string>[] {
  const stanzas: Record<string, string>[] = [];
  let fields: Record<string, string> = {};
  let last: string | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (Object.keys(fields).length > 0) stanzas.push(fields);
      fields = {};
      last = null;
      continue;
    }
    if (/^\s/.test(line) && last) fields[last] += `\n${line.trim()}`;
    else {
      const i = line.indexOf(':');
      if (i > 0) {
        last = line.slice(0, i);
        fields[last] = line.slice(i + 1).trim();
      }
    }
  }
  if (Object.keys(fields).length > 0) stanzas.push(fields);
  return stanzas;
}

/**
 * The newest glibc symbol version an ELF binary asks for (`GLIBC_2.38`), or null for binaries
 * that need none (static, Go without cgo). A byte scan is enough: version names are stored as
 * plain strings in .dynstr.
 */
export function requiredGlibc(binary: Uint8Array): string | null {
  const text = Buffer.from(binary.buffer, binary.byteOffset, binary.byteLength).toString('latin1');
  let best: string | null = null;
  for (const m of text.matchAll(/GLIBC_(\d+\.\d+(?:\.\d+)?)\0/g)) {
    if (best === null || compareDotted(m[1]!, best) > 0) best = m[1]!;
  }
  return best;
}

/** Dotted numeric version order (`2.38` > `2.36`, `1.10` > `1.9`): the stack's comparator, re-exported. */
export const compareDotted = compareVersions;
