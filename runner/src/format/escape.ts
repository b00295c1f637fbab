// Escaping for each output format. Target ids, reasons and labels come from config files and
// result files that anyone can write; printed raw, an escape sequence rewrites the reader's
// terminal and a "</script>" or "<img onerror>" runs in a GitHub job summary or on the site.

// C0 controls except tab and newline, DEL, and the C1 controls (0x80–0x9f, where 0x9b is a
// one-byte CSI). Bidirectional overrides are included: they reorder what the reader sees.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe to print on a terminal: every control character (ESC included) becomes a visible
 * escape such as "\x1b", so the reader sees that it was there and the terminal obeys nothing.
 * Newlines are kept only with `{ multiline: true }`; in a table cell they would break the row.
 */
export function sanitizeTerminal(text: string, options: { multiline?: boolean } = {}): string {
  const out = text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return options.multiline ? out : out.replace(/\r?\n|\t/g, ' ');
}

const HTML: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe inside HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return sanitizeTerminal(text, { multiline: true }).replace(/[&<>"']/g, (c) => HTML[c]!);
}

/**
 * Text safe inside GitHub-flavoured Markdown, table cells included: Markdown syntax that would
 * change the text's meaning — pipes, links, emphasis, code spans — is backslash-escaped, HTML is
 * neutralised as entities (GitHub renders raw HTML in job summaries), and line breaks become spaces.
 */
export function escapeMarkdown(text: string): string {
  return escapeHtml(sanitizeTerminal(text).replace(/[\\|`*_[\]]/g, (c) => `\\${c}`));
}
