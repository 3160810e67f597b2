import assert from "node:assert/strict";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  extractOutboundFiles,
  type MediaPolicy,
  outboundRefusal,
  safeFileName,
} from "../../src/gateway/attachments.js";
import { tempDir } from "../state/temp-dir.js";

test("only existing regular files by absolute path may leave the machine", () => {
  const dir = tempDir("hermes-attach-");
  const file = join(dir, "a.txt");
  writeFileSync(file, "x");
  assert.equal(outboundRefusal(file), null);
  assert.match(outboundRefusal("a.txt") ?? "", /not an absolute path/);
  assert.match(outboundRefusal(dir) ?? "", /not a regular file/);
  assert.match(outboundRefusal(join(dir, "missing")) ?? "", /does not exist/);
  assert.match(outboundRefusal("/dev/zero") ?? "", /device/);
});

test("MEDIA lines and markdown images of local files are taken out of the text; links and remote images stay", () => {
  const dir = tempDir("hermes-attach-");
  const file = join(dir, "b.pdf");
  writeFileSync(file, "%PDF");
  const reply = [
    "Done.",
    `  MEDIA: ${file}  `,
    "![remote](https://example.com/x.png) and [a link](/docs)",
    "MEDIA:/nonexistent/file.txt",
  ].join("\n");
  const { text, files, refused } = extractOutboundFiles(reply);
  assert.deepEqual(files, [{ path: file, image: false }]);
  assert.equal(text, "Done.\n\n![remote](https://example.com/x.png) and [a link](/docs)\nMEDIA:/nonexistent/file.txt");
  assert.equal(refused.length, 1);
});

test("file names from users cannot climb out of the cache directory", () => {
  assert.equal(safeFileName("../../etc/passwd", "f"), "passwd");
  assert.equal(safeFileName("..", "fallback"), "fallback");
  assert.equal(safeFileName("my report (final).pdf", "f"), "my_report_final_.pdf");
  assert.equal(safeFileName(undefined, "photo.jpg"), "photo.jpg");
});

test("gateway.strict: only the media cache, the allowed folders and, when trusted, a file changed just now may be sent", () => {
  const home = tempDir("hermes-strict-home-");
  const cached = join(home, "cache", "audio", "answer.ogg");
  mkdirSync(join(home, "cache", "audio"), { recursive: true });
  writeFileSync(cached, "OggS");
  const shared = tempDir("hermes-strict-shared-");
  writeFileSync(join(shared, "report.pdf"), "%PDF");
  const elsewhere = join(tempDir("hermes-strict-else-"), "notes.txt");
  writeFileSync(elsewhere, "private notes");
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(elsewhere, hourAgo, hourAgo);
  const policy: MediaPolicy = {
    strict: true,
    home,
    allowDirs: [shared],
    trustRecentFiles: false,
    trustRecentSeconds: 600,
  };
  assert.equal(outboundRefusal(cached, policy), null);
  assert.equal(outboundRefusal(join(shared, "report.pdf"), policy), null);
  assert.match(
    outboundRefusal(elsewhere, policy) ?? "",
    /outside the folders files may be sent from \(gateway\.strict/,
  );
  assert.equal(outboundRefusal(elsewhere, { ...policy, strict: false }), null, "not strict: any file but secrets");
  const trusting = { ...policy, trustRecentFiles: true };
  assert.match(outboundRefusal(elsewhere, trusting) ?? "", /outside/, "an hour old is not recent");
  const fresh = join(tempDir("hermes-strict-fresh-"), "chart.png");
  writeFileSync(fresh, "png");
  assert.equal(outboundRefusal(fresh, trusting), null, "a file the agent just made");
  assert.match(outboundRefusal(fresh, policy) ?? "", /outside/, "without trust_recent_files");
  const { files, text } = extractOutboundFiles(`Here.\nMEDIA:${elsewhere}\nMEDIA:${cached}`, policy);
  assert.deepEqual(
    files.map((f) => f.path),
    [cached],
  );
  assert.equal(text, `Here.\nMEDIA:${elsewhere}`, "the refused line stays for the user to see");
});
