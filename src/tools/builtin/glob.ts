/**
 * Glob patterns as regular expressions: `*` and `?` stay inside one path segment, `**` crosses
 * segments, `[abc]` / `[!abc]` are character classes and `{a,b}` picks alternatives.
 */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${globBody(glob)}$`);
}

function globBody(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const char = glob[i] ?? "";
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const slashAfter = glob[i + 2] === "/";
        // "**/" matches zero or more whole directories; a bare "**" matches anything.
        out += slashAfter ? "(?:.*/)?" : ".*";
        i += slashAfter ? 3 : 2;
        continue;
      }
      out += "[^/]*";
    } else if (char === "?") {
      out += "[^/]";
    } else if (char === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close < 0) {
        out += "\\[";
      } else {
        let set = glob.slice(i + 1, close);
        if (set.startsWith("!")) set = `^${set.slice(1)}`;
        out += `[${set.replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else if (char === "{") {
      const close = glob.indexOf("}", i);
      if (close < 0) {
        out += "\\{";
      } else {
        const options = glob.slice(i + 1, close).split(",");
        out += `(?:${options.map(globBody).join("|")})`;
        i = close;
      }
    } else {
      out += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
    i++;
  }
  return out;
}

export function hasGlobSyntax(text: string): boolean {
  return /[*?[{]/.test(text);
}

/**
 * Whether a file matches a glob the way ripgrep's `-g` does: a glob without a slash is matched
 * against the file name at any depth, one with a slash against the path relative to the root.
 */
export function matchesFileGlob(relativePath: string, glob: string): boolean {
  const pattern = glob.startsWith("/") ? glob.slice(1) : glob;
  if (!pattern.includes("/")) {
    const name = relativePath.slice(relativePath.lastIndexOf("/") + 1);
    return globToRegExp(pattern).test(name);
  }
  return globToRegExp(pattern).test(relativePath);
}
