import type { CriClient } from '../cri/types.ts';
import { errorMessage } from '../errors.ts';

/**
 * Remembers every pod a run created until it is removed, so that an error, a crash path or a
 * signal can always clean up. Removing a pod sandbox removes its containers with it.
 */
export class ResourceTracker {
  private readonly pods = new Set<string>();

  addPod(id: string): void {
    this.pods.add(id);
  }

  podRemoved(id: string): void {
    this.pods.delete(id);
  }

  get livePods(): string[] {
    return [...this.pods];
  }

  /**
   * Stops and removes every tracked pod, and every pod carrying the run's label (covers a pod
   * whose RunPodSandbox reply was lost). Returns the problems it could not resolve.
   */
  async cleanup(cri: CriClient, runLabel: Record<string, string>): Promise<string[]> {
    const problems: string[] = [];
    const ids = new Set(this.pods);
    try {
      for (const pod of await cri.listPodSandbox(runLabel)) ids.add(pod.id);
    } catch (error) {
      problems.push(`listing pods: ${errorMessage(error)}`);
    }
    for (const id of ids) {
      try {
        await cri.stopPodSandbox(id);
        await cri.removePodSandbox(id);
        this.pods.delete(id);
      } catch (error) {
        problems.push(`pod ${id}: ${errorMessage(error)}`);
      }
    }
    return problems;
  }
}
