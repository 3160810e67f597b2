/**
 * Colours for the terminal UI as plain ANSI codes; NO_COLOR turns them all off. The role colours
 * (accent, muted, code, warn, error, added, removed) follow the skin picked by `display.skin`.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";

export type Style = (text: string) => string;

const colorOff = () => Boolean(process.env.NO_COLOR);

function sgr(open: number, close: number): Style {
  return (text) => (colorOff() ? text : `\x1b[${open}m${text}\x1b[${close}m`);
}

/** An SGR pair: the code that turns a look on, and the one that turns it off. */
type Look = readonly [open: string, close: string];

export interface Skin {
  description: string;
  accent: Look;
  muted: Look;
  code: Look;
  warn: Look;
  error: Look;
  added: Look;
  removed: Look;
}

const fg = (code: string): Look => [code, "39"];

export const SKINS: Record<string, Skin> = {
  default: {
    description: "cyan accents on a dark terminal",
    accent: fg("36"),
    muted: fg("90"),
    code: fg("33"),
    warn: fg("33"),
    error: fg("31"),
    added: fg("32"),
    removed: fg("31"),
  },
  mono: {
    description: "no colour at all: bold, dim and underline only",
    accent: ["1", "22"],
    muted: ["2", "22"],
    code: ["4", "24"],
    warn: ["1", "22"],
    error: ["1;4", "22;24"],
    added: ["1", "22"],
    removed: ["2", "22"],
  },
  slate: {
    description: "calm blues",
    accent: fg("38;5;75"),
    muted: fg("38;5;245"),
    code: fg("38;5;153"),
    warn: fg("38;5;179"),
    error: fg("38;5;203"),
    added: fg("38;5;114"),
    removed: fg("38;5;203"),
  },
  daylight: {
    description: "dark text and deep colours for a light terminal background",
    accent: fg("38;5;25"),
    muted: fg("38;5;240"),
    code: fg("38;5;94"),
    warn: fg("38;5;130"),
    error: fg("38;5;124"),
    added: fg("38;5;28"),
    removed: fg("38;5;124"),
  },
};

let activeSkin = "default";

/**
 * Switch every role colour to the skin `name`. An unknown name keeps the default skin and
 * returns a notice saying so.
 */
export function applySkin(name: string): string | undefined {
  const wanted = name.trim().toLowerCase() || "default";
  if (SKINS[wanted]) {
    activeSkin = wanted;
    return undefined;
  }
  activeSkin = "default";
  return `Unknown skin "${name}" (display.skin); using the default. Skins: ${Object.keys(SKINS).join(", ")}.`;
}

export function currentSkin(): string {
  return activeSkin;
}

function role(pick: (skin: Skin) => Look): Style {
  return (text) => {
    if (colorOff()) return text;
    const [open, close] = pick(SKINS[activeSkin] ?? SKINS.default!);
    return `\x1b[${open}m${text}\x1b[${close}m`;
  };
}

export const style = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  italic: sgr(3, 23),
  underline: sgr(4, 24),
  inverse: sgr(7, 27),
  strikethrough: sgr(9, 29),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  blue: sgr(34, 39),
  magenta: sgr(35, 39),
  cyan: sgr(36, 39),
  gray: sgr(90, 39),
  accent: role((skin) => skin.accent),
  muted: role((skin) => skin.muted),
  code: role((skin) => skin.code),
  warn: role((skin) => skin.warn),
  error: role((skin) => skin.error),
  added: role((skin) => skin.added),
  removed: role((skin) => skin.removed),
};

export const markdownTheme: MarkdownTheme = {
  heading: (t) => style.bold(style.accent(t)),
  link: style.underline,
  linkUrl: style.muted,
  code: style.code,
  codeBlock: (t) => t,
  codeBlockBorder: style.muted,
  quote: style.italic,
  quoteBorder: style.muted,
  hr: style.muted,
  listBullet: style.accent,
  bold: style.bold,
  italic: style.italic,
  strikethrough: style.strikethrough,
  underline: style.underline,
};

export const selectListTheme: SelectListTheme = {
  selectedPrefix: style.accent,
  selectedText: (t) => style.bold(style.accent(t)),
  description: style.muted,
  scrollInfo: style.muted,
  noMatch: style.muted,
};

export const editorTheme: EditorTheme = {
  borderColor: style.muted,
  selectList: selectListTheme,
};
