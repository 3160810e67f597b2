/**
 * `approvals.deny`: user globs (fnmatch style: `*`, `?`, `[...]`) that refuse a command before
 * any approval mode is consulted. A rule matches the whole command or any single command in
 * it (split at `;`, `&&`, `||`, `|`, newlines), case-insensitively, after simple launchers
 * (`sudo`, `env`, `nohup`, ...) and empty quotes are peeled off.
 */

const LAUNCHERS = new Set(["sudo", "env", "nohup", "command", "exec", "time", "nice", "setsid", "stdbuf", "timeout"]);

export function globToRegExp(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === "*") out += "[\\s\\S]*";
    else if (ch === "?") out += "[\\s\\S]";
    else if (ch === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) {
        out += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, close);
      if (body.startsWith("!")) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, "\\\\")}]`;
      i = close;
    } else out += ch.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "i");
}

function normaliseSpacing(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Drop `VAR=value` prefixes and launcher words, and reduce a path-qualified executable to its name. */
function peelLaunchers(segment: string): string[] {
  const variants = [segment];
  let words = segment.split(" ");
  while (words.length > 0) {
    const first = words[0] as string;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first) || LAUNCHERS.has(first.toLowerCase())) {
      words = words.slice(1);
      while (words[0]?.startsWith("-")) words = words.slice(1);
      if (words.length > 0) variants.push(words.join(" "));
    } else break;
  }
  const exe = words[0];
  if (exe?.includes("/")) variants.push([exe.slice(exe.lastIndexOf("/") + 1), ...words.slice(1)].join(" "));
  return variants;
}

/** Texts a deny rule is matched against. */
export function commandCandidates(command: string): string[] {
  const deobfuscated = command.replace(/""|''/g, "");
  const candidates = new Set<string>();
  for (const text of [command, deobfuscated]) {
    candidates.add(normaliseSpacing(text));
    for (const raw of text.split(/;|&&|\|\||\||\n|\$\(|`|\)/)) {
      const segment = normaliseSpacing(raw.replace(/^[({\s]+/, ""));
      if (segment) for (const variant of peelLaunchers(segment)) candidates.add(variant);
    }
  }
  return [...candidates];
}

/** The first rule that matches the command, or null. */
export function matchDenyRule(command: string, rules: readonly string[]): string | null {
  if (rules.length === 0) return null;
  const candidates = commandCandidates(command);
  for (const rule of rules) {
    const re = globToRegExp(normaliseSpacing(rule));
    if (candidates.some((c) => re.test(c))) return rule;
  }
  return null;
}
