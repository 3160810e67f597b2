/** Colours for the terminal UI as plain ANSI codes; NO_COLOR turns them all off. */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";

export type Style = (text: string) => string;

const colorOff = () => Boolean(process.env.NO_COLOR);

function sgr(open: number, close: number): Style {
  return (text) => (colorOff() ? text : `\x1b[${open}m${text}\x1b[${close}m`);
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
};

export const markdownTheme: MarkdownTheme = {
  heading: (t) => style.bold(style.cyan(t)),
  link: style.underline,
  linkUrl: style.gray,
  code: style.yellow,
  codeBlock: (t) => t,
  codeBlockBorder: style.gray,
  quote: style.italic,
  quoteBorder: style.gray,
  hr: style.gray,
  listBullet: style.cyan,
  bold: style.bold,
  italic: style.italic,
  strikethrough: style.strikethrough,
  underline: style.underline,
};

export const selectListTheme: SelectListTheme = {
  selectedPrefix: style.cyan,
  selectedText: (t) => style.bold(style.cyan(t)),
  description: style.gray,
  scrollInfo: style.gray,
  noMatch: style.gray,
};

export const editorTheme: EditorTheme = {
  borderColor: style.gray,
  selectList: selectListTheme,
};
