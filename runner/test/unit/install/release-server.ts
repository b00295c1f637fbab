// A tiny static HTTP server on 127.0.0.1 standing in for upstream release hosts: files are served
// from <root>/<host>/<path>, the layout `install --mirror` asks for (and, as any other path, the
// release API's answers for `--github-api <url>/api`).
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';

export interface ReleaseServer {
  url: string;
  requests: string[];
  /** Each request's path with the Authorization header it carried (null: none). */
  authorization: { path: string; authorization: string | null }[];
  close(): Promise<void>;
}

export async function startReleaseServer(root: string): Promise<ReleaseServer> {
  const requests: string[] = [];
  const authorization: ReleaseServer['authorization'] = [];
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    requests.push(path);
    authorization.push({ path, authorization: req.headers.authorization ?? null });
    readFile(join(root, path)).then(
      (body) => {
        res.writeHead(200, { 'content-length': body.length });
        res.end(body);
      },
      () => {
        res.writeHead(404);
        res.end('not found');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    authorization,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
