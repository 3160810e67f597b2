/**
 * The page as the model reads it: the accessibility tree (Accessibility.getFullAXTree) as an
 * indented outline of roles, names, values and states, with a ref (`@e1`, `@e2`, ...) on every
 * element one can click or type into. Wrappers without a name are left out (their children move
 * up), text that only repeats its parent's name is dropped, and the outline is cut at a limit.
 */

export interface AXValue {
  value?: unknown;
}

export interface AXNode {
  nodeId: string;
  ignored?: boolean;
  role?: AXValue;
  name?: AXValue;
  value?: AXValue;
  properties?: Array<{ name: string; value: AXValue }>;
  childIds?: string[];
  parentId?: string;
  backendDOMNodeId?: number;
}

export interface Snapshot {
  text: string;
  /** Ref ("e1") to the element's backend DOM node id. */
  refs: Map<string, number>;
  /** Whether the outline was cut at the limit. */
  truncated: boolean;
}

export const SNAPSHOT_CHARS = 8_000;
export const FULL_SNAPSHOT_CHARS = 40_000;
const NAME_CHARS = 200;
const TEXT_CHARS = 500;

const INTERACTIVE = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "combobox",
  "checkbox",
  "radio",
  "switch",
  "slider",
  "spinbutton",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "option",
  "tab",
  "treeitem",
  "listbox",
  "textarea",
]);

/** Roles that only group others: shown only when they carry a name. */
const WRAPPERS = new Set([
  "generic",
  "none",
  "presentation",
  "paragraph",
  "LabelText",
  "MenuListPopup",
  "group",
  "section",
  "Section",
  "div",
  "LineBreak",
]);

/** Fields whose inner text is their value: their children would repeat it. */
const VALUE_HOLDERS = new Set(["textbox", "searchbox", "combobox", "spinbutton", "slider", "textarea"]);

const SHOWN_STATES = ["checked", "pressed", "selected", "expanded", "disabled", "required", "readonly", "level"];

function str(value: AXValue | undefined): string {
  const v = value?.value;
  return v === undefined || v === null ? "" : String(v);
}

function clip(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}

function states(node: AXNode): string[] {
  const out: string[] = [];
  for (const prop of node.properties ?? []) {
    if (!SHOWN_STATES.includes(prop.name)) continue;
    const value = prop.value.value;
    if (prop.name === "level") out.push(`level=${String(value)}`);
    else if (prop.name === "expanded") out.push(value === true || value === "true" ? "expanded" : "collapsed");
    else if (prop.name === "checked" || prop.name === "pressed") {
      if (value === "mixed") out.push(`${prop.name}=mixed`);
      else if (value === true || value === "true") out.push(prop.name);
      else if (prop.name === "checked") out.push("unchecked");
    } else if (value === true || value === "true") out.push(prop.name);
  }
  return out;
}

function isFocusable(node: AXNode): boolean {
  return (node.properties ?? []).some((p) => p.name === "focusable" && p.value.value === true);
}

export function buildSnapshot(nodes: readonly AXNode[], limit = SNAPSHOT_CHARS): Snapshot {
  const byId = new Map(nodes.map((node) => [node.nodeId, node]));
  const root = nodes.find((node) => !node.parentId || !byId.has(node.parentId));
  const refs = new Map<string, number>();
  const lines: string[] = [];
  let size = 0;
  let truncated = false;
  let omitted = 0;

  const emit = (line: string) => {
    if (truncated) {
      omitted++;
      return;
    }
    if (size + line.length + 1 > limit) {
      truncated = true;
      omitted++;
      return;
    }
    lines.push(line);
    size += line.length + 1;
  };

  const visit = (node: AXNode, depth: number, parentName: string, seen: Set<string>) => {
    if (seen.has(node.nodeId)) return;
    seen.add(node.nodeId);
    const role = str(node.role);
    const name = clip(str(node.name), NAME_CHARS);
    let childDepth = depth;
    let nameForChildren = parentName;
    if (!node.ignored && role !== "InlineTextBox") {
      if (role === "StaticText") {
        const text = clip(str(node.name), TEXT_CHARS);
        if (text && text !== parentName) emit(`${"  ".repeat(depth)}- text: ${text}`);
        return;
      }
      const isRoot = role === "RootWebArea" || role === "WebArea";
      const interactive = INTERACTIVE.has(role) || (isFocusable(node) && !isRoot && role !== "generic");
      if (!isRoot && (interactive || name || !WRAPPERS.has(role))) {
        let line = `${"  ".repeat(depth)}- ${role}`;
        if (name) line += ` ${JSON.stringify(name)}`;
        if (interactive && node.backendDOMNodeId !== undefined) {
          const ref = `e${refs.size + 1}`;
          refs.set(ref, node.backendDOMNodeId);
          line += ` @${ref}`;
        }
        const value = clip(str(node.value), NAME_CHARS);
        if (value && value !== name) line += ` value=${JSON.stringify(value)}`;
        const shown = states(node);
        if (shown.length) line += ` [${shown.join(", ")}]`;
        emit(line);
        childDepth = depth + 1;
        nameForChildren = name;
        if (VALUE_HOLDERS.has(role) && role !== "combobox") return;
      }
    }
    for (const id of node.childIds ?? []) {
      const child = byId.get(id);
      if (child) visit(child, childDepth, nameForChildren, seen);
    }
  };

  if (root) visit(root, 0, clip(str(root.name), NAME_CHARS), new Set());
  let text = lines.join("\n");
  if (!text) text = "(the page shows nothing an accessibility tree can describe)";
  if (truncated) {
    text += `\n[snapshot cut at ${limit} characters: ${omitted} more line(s) not shown; call browser_snapshot with full: true for more]`;
  }
  return { text, refs, truncated };
}
