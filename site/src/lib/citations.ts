// The studies benchmark definitions cite by short key ("[kiit]", origin: ["touchstone"]), as
// listed in docs/benchmarks.md. The site renders each key as a link to the study's entry.
export interface Study {
  key: string;
  title: string;
}

export const STUDIES: readonly Study[] = [
  {
    key: 'touchstone',
    title:
      'Espe, Jindal, Podolskiy, Gerndt, "Performance Evaluation of Container Runtimes", CLOSER 2020 (containerd and CRI-O, each with runc and gVisor runsc)',
  },
  {
    key: 'oci-engines',
    title: 'a 2024 blog study of runc, crun, runsc and youki under containerd (nerdctl)',
  },
  { key: 'runc-crun', title: 'a blog study of runc vs crun under Docker and Podman' },
  { key: 'kiit', title: 'Yoon, Kim, Bae, Lee, containerd vs CRI-O in Kubernetes, JKIIT 22(6), 2024' },
];

export type TextPart = string | Study | { code: string };

/**
 * Splits text into plain parts, citation keys and `code` spans:
 * "sysbench `cpu` ([kiit])" → ["sysbench ", { code: "cpu" }, " (", Study kiit, ")"].
 */
export function splitCitations(text: string): TextPart[] {
  return text.split(/`([^`]+)`/).flatMap((part, i) => (i % 2 === 1 ? [{ code: part }] : citations(part)));
}

function citations(text: string): TextPart[] {
  const out: TextPart[] = [];
  let last = 0;
  for (const m of text.matchAll(/\[([a-z0-9][a-z0-9-]*)\]/g)) {
    const study = STUDIES.find((s) => s.key === m[1]);
    if (!study) continue;
    out.push(text.slice(last, m.index));
    out.push(study);
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out.filter((p) => p !== '');
}
