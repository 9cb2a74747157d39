// Aligned columns as kubectl prints them (cli-runtime's tab writer: Go's text/tabwriter with minimum width 6,
// padding 3 and spaces), so that trace tables line up exactly like `crossplane beta trace`'s.

const MIN_WIDTH = 6;
const PADDING = 3;

/** Width as text/tabwriter counts it: one per code point, so "└─ " is three wide. */
function widthOf(text: string): number {
  return Array.from(text).length;
}

/**
 * Lays out rows whose every cell but the last is padded to its column's width: the widest cell plus 3, at least 6.
 * The last cell of a row is not aligned (text/tabwriter's trailing cell), so an empty last cell leaves the row ending
 * in the previous column's padding, as kubectl's output does. Every row must have the same number of cells.
 *
 * @example
 * tabulate([['NAME', 'READY'], ['a', 'True']]) // "NAME   READY\na      True\n"
 */
export function tabulate(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? MIN_WIDTH, widthOf(cell) + PADDING);
    });
  }
  return rows
    .map((row) => {
      const aligned = row.slice(0, -1).map((cell, column) => cell + ' '.repeat((widths[column] ?? 0) - widthOf(cell)));
      return `${aligned.join('')}${row.at(-1) ?? ''}\n`;
    })
    .join('');
}
