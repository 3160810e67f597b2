/** Which benchmark groups a command line asks for. */

export interface Selectable {
  name: string;
  /** Left out unless named in `only` or in `optIn`. */
  optIn?: boolean;
}

export interface Selection {
  /** Comma-separated group names; without it, every group that is not opt-in. */
  only?: string | undefined;
  /** Opt-in groups to add (`--peers` adds "peers"). */
  optIn?: string[];
}

export function selectGroups<T extends Selectable>(groups: T[], selection: Selection): T[] {
  const added = new Set(selection.optIn ?? []);
  const named = selection.only
    ?.split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = [...(named ?? []), ...added].filter((n) => !groups.some((g) => g.name === n));
  if (unknown.length) {
    throw new Error(`unknown group ${unknown.join(", ")}; groups: ${groups.map((g) => g.name).join(", ")}`);
  }
  return groups.filter((g) => added.has(g.name) || (named ? named.includes(g.name) : !g.optIn));
}
