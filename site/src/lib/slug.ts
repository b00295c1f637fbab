/** A URL- and id-safe form of a label: lower-case letters, digits and single dashes. */
export function slugify(text: string): string {
  const s = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'x';
}
