/**
 * `display.tui_status_indicator`: what moves beside "thinking…" and "running …" while the agent
 * works. Every frame of a style is padded to the widest one, so the words after it stay put.
 */
import { type LoaderIndicatorOptions, visibleWidth } from "@mariozechner/pi-tui";
import type { IndicatorStyle } from "./display-options.js";

const STYLES: Record<IndicatorStyle, { frames: string[]; intervalMs: number }> = {
  // Faces change slowly: they are company, not a clock.
  kaomoji: { frames: ["(・ω・)", "(°ロ°)", "(￣ー￣)", "(・_・)", "(＾▽＾)", "(¬_¬)", "(・へ・)"], intervalMs: 2500 },
  emoji: { frames: ["🌑", "🌒", "🌓", "🌔", "🌕", "🌖", "🌗", "🌘"], intervalMs: 150 },
  unicode: { frames: ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"], intervalMs: 80 },
  ascii: { frames: ["|", "/", "-", "\\"], intervalMs: 120 },
};

/** The frames (padded to one width, then coloured by `paint`) and pace of a style. */
export function busyIndicator(style: IndicatorStyle, paint: (text: string) => string = (t) => t) {
  const { frames, intervalMs } = STYLES[style] ?? STYLES.kaomoji;
  const width = Math.max(...frames.map((frame) => visibleWidth(frame)));
  return {
    frames: frames.map((frame) => paint(frame + " ".repeat(width - visibleWidth(frame)))),
    intervalMs,
  } satisfies LoaderIndicatorOptions;
}
