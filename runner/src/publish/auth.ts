// Authentication for pushing from CI without ever writing the token down: git reads it from
// GIT_CONFIG_* environment variables (config given this way lives only in the process environment),
// so it is in no argv, no URL, no .git/config and no log line.

/** Environment variables a token is read from, first match wins. */
export const TOKEN_ENV_VARS = ['RB_PUBLISH_TOKEN', 'GITHUB_TOKEN'] as const;

export interface PublishToken {
  /** The variable the token came from, for messages (never the token itself). */
  source: string;
  token: string;
}

/** The publishing token, if one of TOKEN_ENV_VARS is set to a non-empty value. */
export function tokenFromEnv(env: Readonly<Record<string, string | undefined>>): PublishToken | undefined {
  for (const source of TOKEN_ENV_VARS) {
    const token = env[source]?.trim();
    if (token) return { source, token };
  }
  return undefined;
}

/**
 * `scheme://host[:port]/` of an http(s) remote URL, without any user info; undefined for ssh,
 * scp-like and local remotes, where an HTTP header means nothing.
 */
export function httpOrigin(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  return `${parsed.protocol}//${parsed.host}/`;
}

/** The header GitHub (and actions/checkout) use for token auth over smart HTTP. */
export function authorizationHeader(token: string): string {
  return `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`, 'utf8').toString('base64')}`;
}

/**
 * GIT_CONFIG_COUNT/KEY_n/VALUE_n variables that send the token as an extra HTTP header to the
 * remote's origin only, appended after any such variables already in `baseEnv`.
 *
 * Scoped to the origin (`http.<origin>.extraheader`) so a token meant for one host is never sent to
 * another. Each origin first gets an empty value, which resets git's list of extra headers for that
 * key: actions/checkout persists its own header under the same key in .git/config, and two
 * AUTHORIZATION headers make GitHub answer 400.
 */
export function authConfigEnv(
  token: string,
  remoteUrls: readonly string[],
  baseEnv: Readonly<Record<string, string | undefined>> = {},
): Record<string, string> {
  const origins = [...new Set(remoteUrls.map(httpOrigin).filter((o): o is string => o !== undefined))];
  if (origins.length === 0) return {};
  const existing = Number.parseInt(baseEnv.GIT_CONFIG_COUNT ?? '0', 10);
  let count = Number.isInteger(existing) && existing > 0 ? existing : 0;
  const env: Record<string, string> = {};
  const add = (key: string, value: string) => {
    env[`GIT_CONFIG_KEY_${count}`] = key;
    env[`GIT_CONFIG_VALUE_${count}`] = value;
    count += 1;
  };
  for (const origin of origins) {
    add(`http.${origin}.extraheader`, '');
    add(`http.${origin}.extraheader`, authorizationHeader(token));
  }
  env.GIT_CONFIG_COUNT = String(count);
  return env;
}

/** The forms a token can take in our output: itself and inside the base64 header. */
export function secretForms(token: string): string[] {
  const header = authorizationHeader(token);
  return [token, header.slice(header.lastIndexOf(' ') + 1)];
}

/**
 * Masks secrets and URL user info (`https://user:pass@host` → `https://***@host`) in text meant
 * for a log or an error message.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
