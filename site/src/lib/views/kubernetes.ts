// The Kubernetes view: how much a pod's start and work through the kubelet adds over the same
// work done straight over the CRI, per host class (node class), CRI runtime and handler. The pairs
// of benchmarks and metrics are the runner's one table (KUBERNETES_COUNTERPARTS) and the pairing
// rule its pairsWith, never re-derived here; the rows are the shared overhead table
// (overhead.ts), so pod − CRI carries its bootstrap interval as the engines' does. The numbers
// come from the site index's columns (no result file is read again). Pure.
import { median } from '@runtime-bench/runner/stats';
import {
  isCriLevelTarget,
  KUBERNETES_COUNTERPARTS,
  pairsWith,
  type OverheadCounterpart,
} from '@runtime-bench/runner/overhead';
import { comboLabel } from '../labels.ts';
import {
  STATUS_OK,
  type HostClassInfo,
  type MetricInfo,
  type RunMeta,
  type SiteIndex,
} from '../site-index.ts';
import { overheadRows, type OverheadRow, type PickedSide, type Side, type SideValue } from './overhead.ts';

/** The pod-level benchmark and metric whose median is the kubelet's own share of a pod start. */
export const KUBELET_SHARE = { benchmark: 'kubernetes.pod-startup', metric: 'kubelet-share' } as const;

/** One RuntimeClass of one CRI runtime on one node class, with every pair it has numbers for. */
export interface KubernetesGroup {
  host: HostClassInfo;
  criName: string;
  runtimeClass: string;
  handler: string;
  nodes: string[];
  kubeletVersions: string[];
  /** kubernetes.pod-startup kubelet-share of the newest runs */
  kubeletShare: Side;
  /**
   * The plain sentence when this node class has no CRI-level run of this CRI runtime and handler
   * at all (every row's CRI side then says so too); null when there is one.
   */
  noCriLevel: string | null;
  rows: OverheadRow[];
}

/**
 * The newest "ok" samples of a benchmark metric among some run targets: the rows of the newest
 * start time that has any (all of that time pooled), read backwards through the index's columns.
 */
function newestSide(
  index: SiteIndex,
  metrics: readonly MetricInfo[],
  targets: ReadonlySet<number>,
): { side: SideValue; samples: number[] } | null {
  let newest = -Infinity;
  let found: { metric: MetricInfo; rows: number[] } | null = null;
  for (const metric of metrics) {
    const rows = index.rowsOf(metric.key);
    if (!rows) continue;
    const picked: number[] = [];
    let time = -Infinity;
    let combo: string | null = null;
    for (let i = rows.runTarget.length - 1; i >= 0; i--) {
      const rt = rows.runTarget[i]!;
      if (!targets.has(rt) || rows.status[i] !== STATUS_OK || rows.n[i] === 0) continue;
      const t = index.runs[index.runTargets[rt]!.run]!.time;
      // rows run oldest first: once past the newest time with samples, nothing newer follows
      if (t < time) break;
      // Pooled: one target id at that time (the node files of one cluster run), never two
      // endpoints of one run (say containerd 1.6 and 2.1, both with a runc handler).
      if (combo !== null && index.runTargets[rt]!.targetId !== combo) continue;
      combo = index.runTargets[rt]!.targetId;
      time = t;
      picked.push(i);
    }
    if (picked.length > 0 && time > newest) {
      newest = time;
      found = { metric, rows: picked };
    }
  }
  if (!found) return null;
  const rows = index.rowsOf(found.metric.key)!;
  const samples: number[] = [];
  const runs = new Map<number, RunMeta>();
  for (const i of found.rows.reverse()) {
    for (let j = 0; j < rows.n[i]!; j++) samples.push(rows.samples[rows.start[i]! + j]!);
    const run = index.runTargets[rows.runTarget[i]!]!.run;
    runs.set(run, index.runs[run]!);
  }
  return {
    side: {
      kind: 'value',
      median: median(samples),
      n: samples.length,
      unit: found.metric.unit,
      runs: [...runs.values()].sort((a, b) => a.index - b.index),
      target: comboLabel(index.runTargets[rows.runTarget[found.rows[0]!]!]!),
    },
    samples,
  };
}

/** The newest row of a metric among some run targets, whatever its status: [metric, run target]. */
function newestRow(
  index: SiteIndex,
  metrics: readonly MetricInfo[],
  targets: ReadonlySet<number>,
): [MetricInfo, number] | null {
  let best: [MetricInfo, number] | null = null;
  for (const metric of metrics) {
    const rows = index.rowsOf(metric.key);
    if (!rows) continue;
    for (let i = rows.runTarget.length - 1; i >= 0; i--) {
      const rt = rows.runTarget[i]!;
      if (!targets.has(rt)) continue;
      if (!best || index.runTargets[rt]!.run > index.runTargets[best[1]]!.run) best = [metric, rt];
      break;
    }
  }
  return best;
}

/** The status (and reason) of the newest observation of a metric among some run targets. */
function latestStatus(
  index: SiteIndex,
  metrics: readonly MetricInfo[],
  targets: ReadonlySet<number>,
): string | null {
  const found = newestRow(index, metrics, targets);
  if (!found) return null;
  // one run target: observationsOf makes only its row
  const last = index.observationsOf(found[0].key, (rt) => rt === found[1]).at(-1)!;
  return `latest status "${last.status}"${last.reason ? `: ${last.reason}` : ''}`;
}

interface Groups {
  /** host \0 cri \0 RuntimeClass \0 handler → pod-level run targets */
  pods: Map<string, number[]>;
  /** host → CRI-level run targets (transport grpc or crictl; an engine target is not one) */
  cri: Map<string, number[]>;
}

function groupTargets(index: SiteIndex): Groups {
  const pods = new Map<string, number[]>();
  const cri = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, rt: number) => {
    const list = map.get(key);
    if (list) list.push(rt);
    else map.set(key, [rt]);
  };
  index.runTargets.forEach((t, rt) => {
    if (t.kubernetes)
      add(pods, [t.hostClassId, t.criName, t.kubernetes.runtimeClass, t.handler].join('\u0000'), rt);
    else if (isCriLevelTarget(t)) add(cri, t.hostClassId, rt);
  });
  return { pods, cri };
}

/**
 * For each node class, CRI runtime and RuntimeClass with pod-level results: each counterpart pair
 * (pod-level metric beside the CRI-level metric of the same work) whose pod-level benchmark ran
 * there, with both medians, pod − CRI with its 95 % bootstrap interval, the ratio, and the
 * kubelet's share of a pod start.
 * A CRI-level side is taken only from CRI-level runs (transport grpc or crictl) of the same host
 * class, CRI runtime and handler; where there is none, the row says so.
 */
export function kubernetesOverhead(
  index: SiteIndex,
  counterparts: readonly OverheadCounterpart[] = KUBERNETES_COUNTERPARTS,
): KubernetesGroup[] {
  const metricsByName = new Map<string, MetricInfo[]>();
  for (const m of index.metrics) {
    const key = `${m.benchmark}\u0000${m.metric}`;
    const list = metricsByName.get(key);
    if (list) list.push(m);
    else metricsByName.set(key, [m]);
  }
  const metricsOf = (benchmark: string, metric: string) =>
    metricsByName.get(`${benchmark}\u0000${metric}`) ?? [];
  const { pods, cri } = groupTargets(index);
  const hosts = new Map(index.hostClasses.map((h) => [h.id, h]));
  const groups: KubernetesGroup[] = [];
  for (const [key, list] of pods) {
    const [hostClassId, criName, runtimeClass, handler] = key.split('\u0000') as [
      string,
      string,
      string,
      string,
    ];
    const podTargets = new Set(list);
    // the runner's rule: CRI-level, the same CRI runtime and handler (here: on the same host class)
    const pod = index.runTargets[list.at(-1)!]!;
    const allCri = new Set(
      (cri.get(hostClassId) ?? []).filter((rt) => pairsWith('kubernetes', pod, index.runTargets[rt]!)),
    );
    // Beside the pods, the CRI-level runs of the CRI version the nodes report (their newest
    // pod-level target's), when there are any; else every version's.
    const podVersion = pod.criVersion;
    const sameVersion = new Set([...allCri].filter((rt) => index.runTargets[rt]!.criVersion === podVersion));
    const criTargets = sameVersion.size > 0 ? sameVersion : allCri;
    const noCriLevel =
      criTargets.size === 0
        ? `No CRI-level run (transport grpc or crictl) of ${criName} with handler ${handler} on this host class: run runtime-bench on a node of this class to have a number beside the pod's.`
        : null;
    // a pod-level benchmark that never ran in this group gets no row
    const ran = counterparts.filter((c) =>
      c.metrics.some((m) => newestRow(index, metricsOf(c.upper, m.upper), podTargets) !== null),
    );
    const rows = overheadRows(ran, (c, m) => {
      const podMetrics = metricsOf(c.upper, m.upper);
      const criMetrics = metricsOf(c.cri, m.cri);
      const podValue = newestSide(index, podMetrics, podTargets);
      const upper: PickedSide = podValue ?? {
        side: {
          kind: 'missing',
          why: `no pod-level samples (${latestStatus(index, podMetrics, podTargets) ?? 'not reported'})`,
        },
      };
      const criValue = noCriLevel ? null : newestSide(index, criMetrics, criTargets);
      const criSide: PickedSide = criValue ?? {
        side: {
          kind: 'missing',
          why: noCriLevel
            ? `No CRI-level run of ${criName} with handler ${handler} on this host class.`
            : `No CRI-level run of ${criName} with handler ${handler} on this host class has samples of ${c.cri} · ${m.cri}${(() => {
                const s = latestStatus(index, criMetrics, criTargets);
                return s ? ` (${s})` : '';
              })()}.`,
        },
      };
      return { upper, cri: criSide, unit: podValue?.side.unit ?? podMetrics[0]?.unit ?? null };
    });
    const shareMetrics = metricsOf(KUBELET_SHARE.benchmark, KUBELET_SHARE.metric);
    const share: Side | undefined = newestSide(index, shareMetrics, podTargets)?.side;
    const nodes = new Set<string>();
    const kubelets = new Set<string>();
    for (const rt of list) {
      const k = index.runTargets[rt]!.kubernetes!;
      nodes.add(k.node);
      kubelets.add(k.kubeletVersion);
    }
    groups.push({
      host: hosts.get(hostClassId)!,
      criName,
      runtimeClass,
      handler,
      nodes: [...nodes].sort(),
      kubeletVersions: [...kubelets].sort(),
      kubeletShare: share ?? {
        kind: 'missing',
        why: `no ${KUBELET_SHARE.benchmark} ${KUBELET_SHARE.metric} samples (${latestStatus(index, shareMetrics, podTargets) ?? 'not measured'})`,
      },
      noCriLevel,
      rows,
    });
  }
  const hostOrder = new Map(index.hostClasses.map((h, i) => [h.id, i]));
  return groups.sort(
    (a, b) =>
      hostOrder.get(a.host.id)! - hostOrder.get(b.host.id)! ||
      a.criName.localeCompare(b.criName) ||
      a.handler.localeCompare(b.handler) ||
      a.runtimeClass.localeCompare(b.runtimeClass),
  );
}
