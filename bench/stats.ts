/** Small statistics and table helpers shared by the benchmark scripts. */

export interface Sample {
  median: number;
  min: number;
  max: number;
}

export function summarize(values: number[]): Sample {
  if (values.length === 0) throw new Error("summarize: no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export function median(values: number[]): number {
  return summarize(values).median;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export function formatSample(sample: Sample, unit: string, digits = 1): string {
  return `${sample.median.toFixed(digits)} ${unit} (min ${sample.min.toFixed(digits)}, max ${sample.max.toFixed(digits)})`;
}

/** `a / b` as "1.23x"; empty when the baseline is zero. */
export function formatRatio(value: number, baseline: number): string {
  return baseline === 0 ? "" : `${(value / baseline).toFixed(2)}x`;
}

/** Samples in KiB (what rusage reports) shown in MiB. */
export function formatKiB(sample: Sample): string {
  const mib = (kib: number) => kib / 1024;
  return formatSample({ median: mib(sample.median), min: mib(sample.min), max: mib(sample.max) }, "MiB");
}

export interface Row {
  figure: string;
  value: string;
  baseline?: string;
  ratio?: string;
}

export interface TableHeader {
  value: string;
  baseline: string;
  ratio: string;
}

const DEFAULT_HEADER: TableHeader = { value: "hermes", baseline: "baseline", ratio: "ratio" };

/** A Markdown table, padded so it also reads well in a terminal. */
export function formatTable(rows: Row[], header: TableHeader = DEFAULT_HEADER): string {
  const head: Row = { figure: "figure", ...header };
  const all = [head, ...rows];
  const width = (key: keyof Row) => Math.max(...all.map((r) => (r[key] ?? "").length));
  const w = { figure: width("figure"), value: width("value"), baseline: width("baseline"), ratio: width("ratio") };
  const line = (r: Row) =>
    `| ${r.figure.padEnd(w.figure)} | ${r.value.padEnd(w.value)} | ${(r.baseline ?? "").padEnd(w.baseline)} | ${(r.ratio ?? "").padEnd(w.ratio)} |`;
  const rule = `|${"-".repeat(w.figure + 2)}|${"-".repeat(w.value + 2)}|${"-".repeat(w.baseline + 2)}|${"-".repeat(w.ratio + 2)}|`;
  return [line(head), rule, ...rows.map(line)].join("\n");
}

export function printTable(title: string, rows: Row[], header?: TableHeader): void {
  console.log(`\n### ${title}\n`);
  console.log(formatTable(rows, header));
}
