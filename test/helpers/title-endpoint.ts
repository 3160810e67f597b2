/**
 * Interactive sessions ask the `title` auxiliary model for a title after their first exchange.
 * Tests that script a fake provider's replies point that task at its own endpoint, so a title
 * request never takes a step of the script.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export function titleEndpointConfig(titlesUrl: string): string {
  return `auxiliary:\n  title:\n    base_url: ${titlesUrl}/v1\n    model: t\n`;
}

/** Writes config.yaml in `home` with the title task sent to `titlesUrl`. */
export function useTitleEndpoint(home: string, titlesUrl: string): void {
  writeFileSync(join(home, "config.yaml"), titleEndpointConfig(titlesUrl));
}
