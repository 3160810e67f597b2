import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { extractOutboundFiles, outboundRefusal, safeFileName } from "../../src/gateway/attachments.js";
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
