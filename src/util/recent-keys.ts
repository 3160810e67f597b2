/** Remembers the last `capacity` keys, oldest forgotten first (events already seen, threads joined). */
export class RecentKeys {
  private readonly keys = new Set<string>();
  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Adds the key; false when it was already there. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.capacity) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    return true;
  }
}
