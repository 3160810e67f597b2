/**
 * A unified diff of two texts, line by line (Myers' O(ND) algorithm), in the format `patch`
 * and `git apply` read.
 */

type Op = { kind: " " | "-" | "+"; line: string };

/** Marks a final line that has no newline after it, so it differs from the same text with one. */
const NO_EOL = "\u0000";

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += NO_EOL;
  return lines;
}

/** Beyond this many differing lines the middle is shown as one replaced block. */
const MAX_EDIT_DISTANCE = 2000;

/** Shortest edit script between `a` and `b`, or null when it is longer than the limit. */
function myers(a: string[], b: string[]): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= Math.min(max, MAX_EDIT_DISTANCE); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    if (found >= 0) break;
  }
  if (found < 0) return null;

  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d--) {
    const snap = trace[d]!;
    const at = (k: number) => snap[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: " ", line: a[--x]! });
      y--;
    }
    if (d === 0) break;
    if (x === prevX) ops.push({ kind: "+", line: b[--y]! });
    else ops.push({ kind: "-", line: a[--x]! });
  }
  return ops.reverse();
}

function diffLines(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle = myers(midA, midB) ?? [
    ...midA.map((line): Op => ({ kind: "-", line })),
    ...midB.map((line): Op => ({ kind: "+", line })),
  ];
  const same = (line: string): Op => ({ kind: " ", line });
  return [...a.slice(0, start).map(same), ...middle, ...a.slice(endA).map(same)];
}

function range(start: number, count: number): string {
  // An empty range names the line before it; a one-line range omits its count.
  if (count === 0) return `${start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

function formatLine(op: Op): string {
  if (op.line.endsWith(NO_EOL)) return `${op.kind}${op.line.slice(0, -1)}\n\\ No newline at end of file`;
  return `${op.kind}${op.line}`;
}

/**
 * Returns a unified diff from `oldText` to `newText` for `path` with three lines of context,
 * or "" when the texts are equal.
 */
export function unifiedDiff(oldText: string, newText: string, path: string, context = 3): string {
  if (oldText === newText) return "";
  const ops = diffLines(splitLines(oldText), splitLines(newText));
  const out = [`--- a/${path}`, `+++ b/${path}`];

  // Positions (1-based) of each op in the old and new text.
  const oldLineAt: number[] = [];
  const newLineAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    oldLineAt.push(oldLine);
    newLineAt.push(newLine);
    if (op.kind !== "+") oldLine++;
    if (op.kind !== "-") newLine++;
  }

  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === " ") i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while the next change is close enough to share context.
    while (true) {
      while (end < ops.length && ops[end]!.kind !== " ") end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === " ") next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    const hunk = ops.slice(start, stop);
    const oldCount = hunk.filter((op) => op.kind !== "+").length;
    const newCount = hunk.filter((op) => op.kind !== "-").length;
    out.push(`@@ -${range(oldLineAt[start]!, oldCount)} +${range(newLineAt[start]!, newCount)} @@`);
    for (const op of hunk) out.push(formatLine(op));
    i = stop;
  }
  return `${out.join("\n")}\n`;
}
