/** The file tools never change bytes they did not mean to: 8-bit encodings, BOMs and CRLF survive edits. */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerFileTools } from "../../src/tools/builtin/files.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { decodeText, encodeText } from "../../src/tools/text-encoding.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const dir = tempDir("encodings");
const home = tempDir("encodings-home");
process.env.HOME = home;
process.env.HERMES_HOME = join(home, ".hermes");
const registry = new ToolRegistry();
registerFileTools(registry);
const ctx = makeContext(dir);

const latin1 = (text: string) => Buffer.from(text, "latin1");
const bytesOf = (name: string) => readFileSync(join(dir, name));

test("read_file says which encoding it guessed for a Latin-1 file and shows its text correctly", async () => {
  writeFileSync(join(dir, "menu.txt"), latin1("café crème\nnaïve façade\n"));
  const result = await callTool(registry, "read_file", { path: "menu.txt" }, ctx);
  assert.equal(result.encoding, "windows-1252");
  assert.match(String(result.content), /1\|café crème\n\s+2\|naïve façade/);
  assert.doesNotMatch(String(result.content), /\uFFFD/);
  assert.match(String(result.note), /not valid UTF-8: decoded as windows-1252/);
});

test("patch on a Latin-1 file keeps every untouched byte", async () => {
  const before = latin1("# Résumé\nprix: 10 €\nà bientôt\n".replace("€", "EUR"));
  writeFileSync(join(dir, "fr.txt"), before);
  const result = await callTool(
    registry,
    "patch",
    { path: "fr.txt", old_string: "prix: 10 EUR", new_string: "prix: 12 EUR (été)" },
    ctx,
  );
  assert.equal(result.success, true, JSON.stringify(result));
  assert.deepEqual(bytesOf("fr.txt"), latin1("# Résumé\nprix: 12 EUR (été)\nà bientôt\n"));
});

test("a character the 8-bit encoding cannot hold is refused with the reason, and nothing is written", async () => {
  const before = latin1("Grüße\n");
  writeFileSync(join(dir, "de.txt"), before);
  const result = await callTool(
    registry,
    "patch",
    { path: "de.txt", old_string: "Grüße", new_string: "Grüße → 👋" },
    ctx,
  );
  assert.equal(result.success, false);
  assert.match(
    String(result.error),
    /encoded as windows-1252, which has no byte for "→" \(U\+2192\); nothing was written/,
  );
  assert.deepEqual(bytesOf("de.txt"), before);
});

test("a CRLF file keeps CRLF on every line, the patched ones included", async () => {
  writeFileSync(join(dir, "win.ini"), "[section]\r\nkey=old\r\nother=1\r\n");
  const result = await callTool(
    registry,
    "patch",
    { path: "win.ini", old_string: "key=old", new_string: "key=new\nadded=2" },
    ctx,
  );
  assert.equal(result.success, true);
  assert.equal(bytesOf("win.ini").toString("latin1"), "[section]\r\nkey=new\r\nadded=2\r\nother=1\r\n");
  assert.doesNotMatch(String(result.diff), /\r/, "the diff the model sees is plain LF text");
});

test("a UTF-8 byte-order mark survives patch and write_file", async () => {
  writeFileSync(join(dir, "bom.txt"), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("alpha\nbeta\n")]));
  await callTool(registry, "patch", { path: "bom.txt", old_string: "beta", new_string: "gamma" }, ctx);
  assert.deepEqual([...bytesOf("bom.txt").subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(bytesOf("bom.txt").subarray(3).toString("utf8"), "alpha\ngamma\n");
  const written = await callTool(registry, "write_file", { path: "bom.txt", content: "delta\n" }, ctx);
  assert.match(String(written.note), /byte-order mark/);
  assert.deepEqual(bytesOf("bom.txt"), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("delta\n")]));
});

test("write_file over a Latin-1 CRLF file keeps both; a new file is UTF-8 with LF", async () => {
  writeFileSync(join(dir, "old.txt"), latin1("línea uno\r\nlínea dos\r\n"));
  const result = await callTool(registry, "write_file", { path: "old.txt", content: "señal\nañadida\n" }, ctx);
  assert.equal(result.success, true);
  assert.match(String(result.note), /windows-1252 encoding, CRLF line endings/);
  assert.deepEqual(bytesOf("old.txt"), latin1("señal\r\nañadida\r\n"));
  await callTool(registry, "write_file", { path: "new.txt", content: "señal\n" }, ctx);
  assert.deepEqual(bytesOf("new.txt"), Buffer.from("señal\n", "utf8"));
});

test("a UTF-16 file with a BOM is text: read and patched in UTF-16", async () => {
  writeFileSync(join(dir, "wide.txt"), encodeText("name=Zoë\r\n", { encoding: "utf-16le", bom: true }));
  const read = await callTool(registry, "read_file", { path: "wide.txt" }, ctx);
  assert.equal(read.encoding, "utf-16le");
  assert.match(String(read.content), /name=Zoë/);
  const patched = await callTool(registry, "patch", { path: "wide.txt", old_string: "Zoë", new_string: "Zoé" }, ctx);
  assert.equal(patched.success, true);
  assert.deepEqual(bytesOf("wide.txt"), encodeText("name=Zoé\r\n", { encoding: "utf-16le", bom: true }));
});

test("a V4A patch on a CRLF Latin-1 file keeps its bytes too", async () => {
  writeFileSync(join(dir, "v4a.txt"), latin1("un\r\ndeux\r\ntrois é\r\n"));
  const patch = [
    "*** Begin Patch",
    "*** Update File: v4a.txt",
    "@@",
    " un",
    "-deux",
    "+déjà deux",
    " trois",
    "*** End Patch",
  ];
  const result = await callTool(registry, "patch", { mode: "patch", patch: patch.join("\n") }, ctx);
  assert.equal(result.success, true, JSON.stringify(result));
  assert.deepEqual(bytesOf("v4a.txt"), latin1("un\r\ndéjà deux\r\ntrois é\r\n"));
});

test("an all-ASCII file is UTF-8, so new non-ASCII text is written as UTF-8", async () => {
  writeFileSync(join(dir, "ascii.txt"), "plain\n");
  await callTool(registry, "patch", { path: "ascii.txt", old_string: "plain", new_string: "déjà" }, ctx);
  assert.deepEqual(bytesOf("ascii.txt"), Buffer.from("déjà\n", "utf8"));
});

test("every windows-1252 byte decodes and encodes back to itself", () => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i).filter((b) => b !== 0));
  const decoded = decodeText(Buffer.concat([Buffer.from([0xe9]), all]));
  assert.equal(decoded.encoding, "windows-1252");
  assert.deepEqual(encodeText(decoded.text, decoded), Buffer.concat([Buffer.from([0xe9]), all]));
});
