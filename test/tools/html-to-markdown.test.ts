import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeEntities, parseHtml } from "../../src/tools/web/html-parse.js";
import { htmlToMarkdown } from "../../src/tools/web/html-to-markdown.js";

function md(html: string, base = "https://ex.com/dir/"): string {
  return htmlToMarkdown(html, base).markdown;
}

test("headings, paragraphs, emphasis, inline code and line breaks", () => {
  assert.equal(
    md("<h2>Site &mdash; head</h2><p>First <b>bold</b> and <em>it</em> and <code>x&lt;y</code><br>next line<p>Second"),
    "## Site — head\n\nFirst **bold** and *it* and `x<y`\nnext line\n\nSecond",
  );
});

test("links and images resolve against the page URL; script links and anchors keep only their text", () => {
  assert.equal(
    md(
      '<p><a href="../docs">docs</a> <img src="/i.png" alt="pic"> <a href="javascript:void(0)">js</a> <a href="#x">top</a></p>',
    ),
    "[docs](https://ex.com/docs) ![pic](https://ex.com/i.png) js top",
  );
});

test("nested, ordered and multi-paragraph lists, with implied </li>", () => {
  assert.equal(
    md('<ul><li>a<ul><li>a1<li>a2</ul><li>b <p>para in b</p></ul><ol start="3"><li>three<li>four</ol>'),
    "- a\n  - a1\n  - a2\n- b\n\n  para in b\n\n3. three\n4. four",
  );
});

test("block quotes, tables and preformatted code keep their structure", () => {
  assert.equal(md("<blockquote><p>quoted</p><p>twice</p></blockquote>"), "> quoted\n>\n> twice");
  assert.equal(md("<table><tr><th>H1<th>H2<tr><td>1<td>2 | 3</table>"), "| H1 | H2 |\n| --- | --- |\n| 1 | 2 \\| 3 |");
  assert.equal(
    md('<pre class="language-py">  indented\n    code &amp; more</pre>'),
    "```py\n  indented\n    code & more\n```",
  );
});

test("scripts, styles, navigation, footers and hidden elements are dropped", () => {
  const html = `<html><head><title>T</title><style>p{color:red}</style></head><body>
    <nav><a href="/">Home</a></nav><script>var a = "<p>not text</p>";</script>
    <p>Kept</p><div hidden>secret</div><footer>foot</footer></body></html>`;
  const page = htmlToMarkdown(html);
  assert.equal(page.title, "T");
  assert.equal(page.markdown, "Kept");
});

test("only <main> is kept when the page marks its main content", () => {
  assert.equal(md("<div>sidebar</div><main><h1>Title</h1><p>Body</p></main><div>ads</div>"), "# Title\n\nBody");
});

test("entities decode by name and number; unknown ones stay", () => {
  assert.equal(decodeEntities("&copy; &#169; &#x263A; &amp;amp; &bogus;"), "© © ☺ &amp; &bogus;");
});

test("the parser tolerates unclosed and stray tags", () => {
  const root = parseHtml("<div><p>one<p>two</span></div>tail");
  const div = root.children[0];
  assert.ok(div !== undefined && typeof div !== "string");
  assert.equal(div.tag, "div");
  assert.equal(div.children.length, 2);
  assert.equal(root.children[1], "tail");
});
