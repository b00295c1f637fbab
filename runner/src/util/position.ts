/** `line L, column C` (both from 1) of a character offset in `text`, for parse errors. */
export function lineColumn(text: string, offset: number): string {
  const lines = text.slice(0, offset).split('\n');
  return `line ${lines.length}, column ${lines.at(-1)!.length + 1}`;
}
