/** The snapshot outline built from accessibility nodes, and the key names browser_press accepts. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseKey } from "../../src/tools/browser/keys.js";
import { type AXNode, buildSnapshot } from "../../src/tools/browser/snapshot.js";

let nextId = 0;
function node(role: string, name = "", extra: Partial<AXNode> = {}, children: AXNode[] = []): AXNode[] {
  const id = String(++nextId);
  const self: AXNode = {
    nodeId: id,
    role: { value: role },
    name: { value: name },
    backendDOMNodeId: 100 + nextId,
    childIds: children.filter((c) => !c.parentId).map((c) => c.nodeId),
    ...extra,
  };
  for (const child of children) if (!child.parentId) child.parentId = id;
  return [self, ...children];
}

function page(...children: AXNode[][]): AXNode[] {
  const flat = children.flat();
  const [root, ...rest] = node("RootWebArea", "Title", {}, flat);
  return [root!, ...rest];
}

test("interactive elements get refs in document order; wrappers without a name are left out", () => {
  const nodes = page(
    node("heading", "Welcome", { properties: [{ name: "level", value: { value: 2 } }] }, node("StaticText", "Welcome")),
    node("generic", "", {}, [
      ...node("textbox", "Email", { value: { value: "a@b.c" } }, node("StaticText", "a@b.c")),
      ...node("button", "Send", {}, node("StaticText", "Send")),
    ]),
    node("paragraph", "", {}, node("StaticText", "Some  text\nhere")),
    node("checkbox", "Agree", { properties: [{ name: "checked", value: { value: "false" } }] }),
    node("link", "More", { ignored: true }),
  );
  const snapshot = buildSnapshot(nodes);
  assert.equal(
    snapshot.text,
    [
      '- heading "Welcome" [level=2]',
      '- textbox "Email" @e1 value="a@b.c"',
      '- button "Send" @e2',
      "- text: Some text here",
      '- checkbox "Agree" @e3 [unchecked]',
    ].join("\n"),
  );
  assert.equal(snapshot.truncated, false);
  assert.deepEqual([...snapshot.refs.keys()], ["e1", "e2", "e3"]);
  const textbox = nodes.find((n) => n.role?.value === "textbox")!;
  assert.equal(snapshot.refs.get("e1"), textbox.backendDOMNodeId);
});

test("named groups keep their children indented under them; states are shown", () => {
  const nodes = page(
    node("navigation", "Main", {}, [
      ...node("link", "Home", {}, node("StaticText", "Home")),
      ...node("button", "Menu", {
        properties: [
          { name: "expanded", value: { value: false } },
          { name: "disabled", value: { value: true } },
        ],
      }),
    ]),
  );
  assert.equal(
    buildSnapshot(nodes).text,
    ['- navigation "Main"', '  - link "Home" @e1', '  - button "Menu" @e2 [collapsed, disabled]'].join("\n"),
  );
});

test("a snapshot over its limit is cut at a line and says how much is left out", () => {
  const paragraphs = Array.from({ length: 50 }, (_, i) => node("StaticText", `Line number ${i} of the page`));
  const snapshot = buildSnapshot(page(...paragraphs), 300);
  assert.equal(snapshot.truncated, true);
  const [body, notice] = [snapshot.text.slice(0, snapshot.text.lastIndexOf("\n")), snapshot.text.split("\n").at(-1)];
  assert.ok(body.length <= 300);
  assert.match(body, /^- text: Line number 0 of the page\n/);
  assert.match(
    String(notice),
    /^\[snapshot cut at 300 characters: \d+ more line\(s\) not shown; call browser_snapshot with full: true for more\]$/,
  );
});

test("an empty page says so instead of returning nothing", () => {
  assert.match(buildSnapshot(page()).text, /shows nothing/);
  assert.match(buildSnapshot([]).text, /shows nothing/);
});

test("key names: named keys (any case, with aliases), single characters, and modifiers; unknown names are null", () => {
  assert.deepEqual(parseKey("Enter"), {
    definition: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
    modifiers: 0,
  });
  assert.equal(parseKey("escape")?.definition.key, "Escape");
  assert.equal(parseKey("Esc")?.definition.key, "Escape");
  assert.equal(parseKey("down")?.definition.key, "ArrowDown");
  assert.deepEqual(parseKey("Shift+Tab"), { definition: { key: "Tab", code: "Tab", keyCode: 9 }, modifiers: 8 });
  assert.deepEqual(parseKey("Control+a"), {
    definition: { key: "a", code: "KeyA", keyCode: 65, text: "a" },
    modifiers: 2,
  });
  assert.equal(parseKey("7")?.definition.code, "Digit7");
  assert.equal(parseKey("+")?.definition.text, "+");
  assert.equal(parseKey("Hyper"), null);
  assert.equal(parseKey("Super+a"), null);
  assert.equal(parseKey("Shift+"), null);
});
