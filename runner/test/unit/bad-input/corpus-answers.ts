// The corpus's hostile answers from servers: a loopback HTTP server answers each case under a path
// of its own, as the GitHub releases API (through `install --mirror`) and as the Go module proxy
// (GOPROXY, read by `go list -m -versions` for a sweep's range).
import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusCase } from './corpus-cases.ts';

export interface Answer {
  status: number;
  body: string | Buffer;
}

export interface AnswerServer {
  url: string;
  /** Answers requests under /<id>/ with `answer`. */
  answer(id: string, answer: Answer): void;
  close(): Promise<void>;
}

export async function startAnswerServer(): Promise<AnswerServer> {
  const answers = new Map<string, Answer>();
  const server: Server = createServer((req, res) => {
    const id = (req.url ?? '/').split('/')[1] ?? '';
    const a = answers.get(id) ?? { status: 404, body: 'no such case' };
    res.writeHead(a.status, { 'content-type': 'application/octet-stream' });
    res.end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    answer: (id, a) => answers.set(id, a),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const json = (value: unknown): Answer => ({ status: 200, body: JSON.stringify(value) });
const text = (body: string | Buffer, status = 200): Answer => ({ status, body });

/** What a releases API (or a mirror or proxy in front of it) may answer for `releases/latest`. */
const RELEASE_ANSWERS: [string, Answer][] = [
  ['empty', text('')],
  ['not JSON', text('not json')],
  ['an HTML page', text('<html><body>Rate limit exceeded</body></html>')],
  ['{}', json({})],
  ['tag_name null', json({ tag_name: null })],
  ['tag_name a number', json({ tag_name: 5 })],
  ['tag_name a list', json({ tag_name: ['v1.2.3'] })],
  ['tag_name empty', json({ tag_name: '' })],
  ['tag_name "v"', json({ tag_name: 'v' })],
  ['tag_name climbing out', json({ tag_name: '../../../etc' })],
  ['tag_name with a flag', json({ tag_name: 'v1.2.3 --x' })],
  ['tag_name with a newline', json({ tag_name: 'v1.2.3\n' })],
  ['tag_name a path', json({ tag_name: 'v1.2.3/../../x' })],
  ['tag_name starting with "-"', json({ tag_name: '-v1' })],
  ['tag_name 64 KiB', json({ tag_name: `v${'1'.repeat(65536)}` })],
  ['a list', json([])],
  ['null', text('null')],
  ['2 MiB of junk', text(Buffer.alloc(2 * 2 ** 20, 0xfe))],
  ['HTTP 404', text('Not Found', 404)],
  ['HTTP 500', text('oops', 500)],
  ['HTTP 403', text('{"message":"API rate limit exceeded"}', 403)],
];

/** `install runc@latest --mirror <case>` into a scratch prefix: refused before anything is downloaded. */
export function releaseCases(server: AnswerServer, dir: string): CorpusCase[] {
  return RELEASE_ANSWERS.map(([name, answer], i) => {
    const id = `release-${i}`;
    server.answer(id, answer);
    const prefix = join(dir, id);
    return {
      kind: 'release API answer',
      name,
      args: [
        'install',
        'runc@latest',
        '--prefix',
        prefix,
        '--state',
        join(prefix, 'state.json'),
        '--mirror',
        `${server.url}/${id}`,
      ],
      names: ['api.github.com/repos/opencontainers/runc/releases/latest'],
    };
  });
}

/** What a Go module proxy may answer for `<module>/@v/list` (every other path: the same). */
const PROXY_ANSWERS: [string, Answer][] = [
  ['empty', text('')],
  ['junk', text('%%% not a version list %%%')],
  ['a version with a flag', text('v1.1.5\nv1.2.0 --x\n')],
  ['a path', text('../../etc\n')],
  ['binary', text(Buffer.from([0, 1, 2, 0xff, 0xfe, 10]))],
  ['1 MiB of versions', text(Array.from({ length: 60000 }, (_, i) => `v0.0.${i}`).join('\n'))],
  ['HTTP 404', text('not found', 404)],
  ['HTTP 410', text('gone', 410)],
  ['HTTP 500', text('oops', 500)],
  ['JSON instead', json({ Version: 'v1.1.5' })],
];

/**
 * `sweep runc@1.1.5..1.2.0 --dry-run` against each proxy answer (its own module cache, no
 * fallback to the network): the range is refused, or the listing is, naming the module or the end.
 */
export function proxyCases(server: AnswerServer, dir: string): CorpusCase[] {
  return PROXY_ANSWERS.map(([name, answer], i) => {
    const id = `proxy-${i}`;
    server.answer(id, answer);
    const gopath = join(dir, id);
    mkdirSync(gopath, { recursive: true });
    return {
      kind: 'module proxy answer',
      name,
      args: ['sweep', 'runc@1.1.5..1.2.0', '--dry-run'],
      env: {
        GOPROXY: `${server.url}/${id}`,
        GOSUMDB: 'off',
        GOPATH: gopath,
        GOMODCACHE: join(gopath, 'mod'),
        GOCACHE: join(gopath, 'cache'),
      },
      names: [
        /github\.com\/opencontainers\/runc|the range's (start|end) 1\.(1\.5|2\.0) is not among the available versions/,
      ],
    };
  });
}
