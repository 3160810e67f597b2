/** Key names the model may press, as Input.dispatchKeyEvent wants them. */

export interface KeyDefinition {
  key: string;
  code: string;
  keyCode: number;
  /** The character the key types, if any. */
  text?: string;
}

const NAMED: Record<string, KeyDefinition> = {
  enter: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  tab: { key: "Tab", code: "Tab", keyCode: 9 },
  escape: { key: "Escape", code: "Escape", keyCode: 27 },
  backspace: { key: "Backspace", code: "Backspace", keyCode: 8 },
  delete: { key: "Delete", code: "Delete", keyCode: 46 },
  arrowup: { key: "ArrowUp", code: "ArrowUp", keyCode: 38 },
  arrowdown: { key: "ArrowDown", code: "ArrowDown", keyCode: 40 },
  arrowleft: { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37 },
  arrowright: { key: "ArrowRight", code: "ArrowRight", keyCode: 39 },
  home: { key: "Home", code: "Home", keyCode: 36 },
  end: { key: "End", code: "End", keyCode: 35 },
  pageup: { key: "PageUp", code: "PageUp", keyCode: 33 },
  pagedown: { key: "PageDown", code: "PageDown", keyCode: 34 },
  space: { key: " ", code: "Space", keyCode: 32, text: " " },
};

const ALIASES: Record<string, string> = {
  return: "enter",
  esc: "escape",
  up: "arrowup",
  down: "arrowdown",
  left: "arrowleft",
  right: "arrowright",
};

/** Modifier bits of Input.dispatchKeyEvent. */
const MODIFIERS: Record<string, number> = { alt: 1, control: 2, ctrl: 2, meta: 4, cmd: 4, shift: 8 };

export const KEY_NAMES =
  "Enter, Tab, Escape, Backspace, Delete, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, Space";

export interface KeyPress {
  definition: KeyDefinition;
  modifiers: number;
}

function singleCharacter(char: string): KeyDefinition {
  const upper = char.toUpperCase();
  if (/^[a-z]$/i.test(char)) return { key: char, code: `Key${upper}`, keyCode: upper.charCodeAt(0), text: char };
  if (/^[0-9]$/.test(char)) return { key: char, code: `Digit${char}`, keyCode: char.charCodeAt(0), text: char };
  return { key: char, code: "", keyCode: 0, text: char };
}

/** "Enter", "Shift+Tab", "Control+a", "x" → what to dispatch; null for a name we do not know. */
export function parseKey(input: string): KeyPress | null {
  if (input.trim() === "+") return { definition: singleCharacter("+"), modifiers: 0 };
  const parts = input.trim().split("+");
  const last = parts.pop() ?? "";
  let modifiers = 0;
  for (const part of parts) {
    const bit = MODIFIERS[part.trim().toLowerCase()];
    if (bit === undefined) return null;
    modifiers |= bit;
  }
  const name = last.trim();
  if (!name) return null;
  const lower = name.toLowerCase();
  const named = NAMED[ALIASES[lower] ?? lower];
  if (named) return { definition: named, modifiers };
  if ([...name].length === 1) return { definition: singleCharacter(name), modifiers };
  return null;
}
