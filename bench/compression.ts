/**
 * Compression figures on a synthetic ~200k-token transcript: time of the pruning pre-pass
 * (phase 1) and the tokens it saves, then a full pass with a stub summarizer.
 * Run alone with `node --import tsx bench/compression.ts`.
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { findBoundaries } from "../src/agent/compression/boundaries.js";
import { pruneOldToolResults } from "../src/agent/compression/prune.js";
import { ContextCompressor } from "../src/agent/compressor.js";
import { estimateTokens } from "../src/util/tokens.js";
import { syntheticTranscript } from "../test/helpers/synthetic-transcript.js";
import { formatSample, printTable, summarize } from "./stats.js";

const TARGET_TOKENS = 200_000;
const CONTEXT_LENGTH = 400_000;
const RUNS = 7;

export async function benchCompression(): Promise<Array<{ figure: string; value: string }>> {
  const transcript = syntheticTranscript({ chars: TARGET_TOKENS * 4, resultChars: 4_000 });
  transcript.push({ role: "user", content: "Summarize where we are." });
  const tokensBefore = estimateTokens(transcript);
  const compressor = new ContextCompressor({
    contextLength: CONTEXT_LENGTH,
    summarize: async () => "## Active Task\nSummarize where we are.\n\n## Progress\n1. stub",
  });
  const { tailStart } = findBoundaries(transcript, compressor);

  const pruneMs: number[] = [];
  let prunedTokens = tokensBefore;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const pruned = pruneOldToolResults(transcript, { tailStart });
    pruneMs.push(performance.now() - started);
    prunedTokens = estimateTokens(pruned.messages);
  }

  const fullMs: number[] = [];
  let tokensAfter = tokensBefore;
  for (let run = 0; run < RUNS; run++) {
    compressor.previousSummary = undefined;
    const started = performance.now();
    const result = await compressor.compress(transcript);
    fullMs.push(performance.now() - started);
    tokensAfter = result.tokensAfter;
  }

  const saved = tokensBefore - prunedTokens;
  return [
    { figure: "synthetic transcript", value: `${transcript.length} messages, ${tokensBefore.toLocaleString()} tokens` },
    { figure: "pre-pass (phase 1) time", value: formatSample(summarize(pruneMs), "ms") },
    {
      figure: "pre-pass tokens saved",
      value: `${saved.toLocaleString()} (${((saved / tokensBefore) * 100).toFixed(1)}%)`,
    },
    { figure: "full pass time (stub summarizer)", value: formatSample(summarize(fullMs), "ms") },
    {
      figure: "full pass tokens after",
      value: `${tokensAfter.toLocaleString()} (${((tokensAfter / tokensBefore) * 100).toFixed(1)}% of before)`,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Compression", await benchCompression());
}
