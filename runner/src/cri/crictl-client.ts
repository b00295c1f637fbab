import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec } from '../util/exec.ts';
import { CommandError } from '../errors.ts';
import {
  crictlConfigYaml,
  execExitCode,
  parseCrictlId,
  parseCrictlVersion,
  parseInspect,
  parseImages,
  parseInspecti,
  parseInspectp,
  parsePulled,
  parsePods,
  parseStats,
  toCrictlJson,
  updateArgs,
} from './crictl-format.ts';
import {
  CriCallError,
  type ContainerConfig,
  type ContainerStats,
  type ContainerStatus,
  type CriClient,
  asKubeletSends,
  type ExecSyncResult,
  type ImageInfo,
  type LinuxContainerResources,
  type PodSandboxConfig,
  type PodSandboxStatus,
  type PodSandboxSummary,
  type VersionInfo,
} from './types.ts';

/**
 * CRI through the crictl CLI, one process per call, with a private --config so that the host's
 * /etc/crictl.yaml never chooses the endpoint. What an operator's scripts see; its process start
 * (several ms) is part of every timed call, which the overhead bench quantifies.
 */
export class CrictlClient implements CriClient {
  readonly transport = 'crictl' as const;
  readonly endpoint: string;
  private readonly dir: string;
  private readonly configPath: string;
  private readonly crictl: string;
  private readonly timeoutSeconds: number;
  private counter = 0;

  constructor(crictl: string, socket: string, timeoutSeconds = 120) {
    this.crictl = crictl;
    this.timeoutSeconds = timeoutSeconds;
    this.endpoint = `unix://${socket}`;
    this.dir = mkdtempSync(join(tmpdir(), 'runtime-bench-crictl-'));
    this.configPath = join(this.dir, 'crictl.yaml');
    writeFileSync(this.configPath, crictlConfigYaml(socket, timeoutSeconds));
  }

  private async run(call: string, args: string[], extraTimeoutSeconds = 0): Promise<string> {
    try {
      const r = await exec(this.crictl, ['--config', this.configPath, ...args], {
        timeoutMs: (this.timeoutSeconds + extraTimeoutSeconds + 5) * 1000,
      });
      return r.stdout;
    } catch (error) {
      if (error instanceof CommandError) {
        const detail = error.stderr.trim().split('\n').pop() ?? error.message;
        throw new CriCallError(call, detail.replace(/^time="[^"]*" level=\w+ msg="(.*)"$/, '$1'));
      }
      throw error;
    }
  }

  private writeJson(prefix: string, value: unknown): string {
    const path = join(this.dir, `${prefix}-${++this.counter}.json`);
    writeFileSync(path, JSON.stringify(toCrictlJson(value)));
    return path;
  }

  async version(): Promise<VersionInfo> {
    return parseCrictlVersion(await this.run('Version', ['version']));
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler: string): Promise<string> {
    const pod = this.writeJson('pod', config);
    return parseCrictlId(await this.run('RunPodSandbox', ['runp', '--runtime', runtimeHandler, pod]), 'runp');
  }

  async stopPodSandbox(podId: string): Promise<void> {
    await this.run('StopPodSandbox', ['stopp', podId]);
  }

  async removePodSandbox(podId: string): Promise<void> {
    await this.run('RemovePodSandbox', ['rmp', podId]);
  }

  async podSandboxStatus(podId: string): Promise<PodSandboxStatus> {
    return parseInspectp(await this.run('PodSandboxStatus', ['inspectp', '-o', 'json', podId]));
  }

  async listPodSandbox(labelSelector?: Record<string, string>): Promise<PodSandboxSummary[]> {
    const labels = Object.entries(labelSelector ?? {}).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
    return parsePods(await this.run('ListPodSandbox', ['pods', '-o', 'json', ...labels]));
  }

  async createContainer(
    podId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    const ctr = this.writeJson('container', asKubeletSends(config, sandboxConfig));
    const pod = this.writeJson('pod', sandboxConfig);
    return parseCrictlId(await this.run('CreateContainer', ['create', podId, ctr, pod]), 'create');
  }

  async startContainer(containerId: string): Promise<void> {
    await this.run('StartContainer', ['start', containerId]);
  }

  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.run(
      'StopContainer',
      ['stop', '--timeout', String(timeoutSeconds), containerId],
      timeoutSeconds,
    );
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.run('RemoveContainer', ['rm', containerId]);
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    return parseInspect(await this.run('ContainerStatus', ['inspect', '-o', 'json', containerId]));
  }

  async updateContainerResources(containerId: string, resources: LinuxContainerResources): Promise<void> {
    await this.run('UpdateContainerResources', updateArgs(containerId, resources));
  }

  async containerStats(containerId: string): Promise<ContainerStats> {
    return parseStats(await this.run('ContainerStats', ['stats', '-o', 'json', '--id', containerId]));
  }

  async execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResult> {
    try {
      const stdout = await this.run(
        'ExecSync',
        ['exec', '--sync', '--timeout', String(timeoutSeconds), containerId, ...cmd],
        timeoutSeconds,
      );
      // crictl prints the command's stdout and then its stderr, both to its own stdout.
      return { stdout, stderr: '', exitCode: 0 };
    } catch (error) {
      const code = error instanceof CriCallError ? execExitCode(error.message) : null;
      if (code !== null)
        return { stdout: '', stderr: error instanceof Error ? error.message : '', exitCode: code };
      throw error;
    }
  }

  async imageStatus(image: string): Promise<ImageInfo | null> {
    try {
      return parseInspecti(await this.run('ImageStatus', ['inspecti', '-o', 'json', image]));
    } catch (error) {
      if (error instanceof CriCallError && /no such image|not found/i.test(error.message)) return null;
      throw error;
    }
  }

  async listImages(): Promise<ImageInfo[]> {
    return parseImages(await this.run('ListImages', ['images', '-o', 'json']));
  }

  async pullImage(image: string, sandboxConfig?: PodSandboxConfig): Promise<string> {
    const args = sandboxConfig
      ? ['pull', '--pod-config', this.writeJson('pod', sandboxConfig), image]
      : ['pull', image];
    return parsePulled(await this.run('PullImage', args));
  }

  async removeImage(image: string): Promise<void> {
    await this.run('RemoveImage', ['rmi', image]);
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
