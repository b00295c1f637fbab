// The one place that turns a transport name into a CRI client: run targets, the stack manager,
// `version` and the benches all connect through createCriClient.
import type { Transport } from '@runtime-bench/schemas';
import { CrictlClient } from './crictl-client.ts';
import { GrpcCriClient, socketPath } from './grpc-client.ts';
import type { CriClient } from './types.ts';

export interface CriClientOptions {
  /** Deadline of one call, in seconds. */
  timeoutSeconds?: number;
  /** The crictl binary (a resolved path) for transport "crictl". */
  crictl?: string;
}

/**
 * A CRI client for `endpoint` (a socket path, with or without `unix://`) over `transport`.
 * Adding a transport means one more case here and one more value in the schemas' TransportSchema.
 */
export function createCriClient(transport: 'grpc', endpoint: string, opts?: CriClientOptions): GrpcCriClient;
export function createCriClient(transport: Transport, endpoint: string, opts?: CriClientOptions): CriClient;
export function createCriClient(
  transport: Transport,
  endpoint: string,
  opts: CriClientOptions = {},
): CriClient {
  const socket = socketPath(endpoint);
  switch (transport) {
    case 'grpc':
      return new GrpcCriClient(socket, opts.timeoutSeconds);
    case 'crictl':
      return new CrictlClient(opts.crictl ?? 'crictl', socket, opts.timeoutSeconds);
  }
}
