/** Small statistics and table helpers shared by the benchmark scripts. */

export interface Sample {
  median: number;
  min: number;
  max: number;
}

export function summarize(values: number[]): Sample {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export function formatSample(sample: Sample, unit: string, digits = 1): string {
  return `${sample.median.toFixed(digits)} ${unit} (min ${sample.min.toFixed(digits)}, max ${sample.max.toFixed(digits)})`;
}

export interface Row {
  figure: string;
  value: string;
  baseline?: string;
  ratio?: string;
}

export function printTable(title: string, rows: Row[]): void {
  const header: Row = { figure: "figure", value: "hermes", baseline: "baseline", ratio: "ratio" };
  const all = [header, ...rows];
  const width = (key: keyof Row) => Math.max(...all.map((r) => (r[key] ?? "").length));
  const w = { figure: width("figure"), value: width("value"), baseline: width("baseline"), ratio: width("ratio") };
  const line = (r: Row) =>
    `| ${r.figure.padEnd(w.figure)} | ${r.value.padEnd(w.value)} | ${(r.baseline ?? "").padEnd(w.baseline)} | ${(r.ratio ?? "").padEnd(w.ratio)} |`;
  console.log(`\n### ${title}\n`);
  console.log(line(header));
  console.log(
    `|${"-".repeat(w.figure + 2)}|${"-".repeat(w.value + 2)}|${"-".repeat(w.baseline + 2)}|${"-".repeat(w.ratio + 2)}|`,
  );
  for (const row of rows) console.log(line(row));
}
