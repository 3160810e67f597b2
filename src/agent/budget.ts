/**
 * The iteration budget: one unit per model call, shared by a parent agent and every subagent
 * it spawns, so a delegation chain cannot run away with the user's credits.
 */
export class IterationBudget {
  remaining: number;
  used = 0;

  constructor(readonly total = 90) {
    this.remaining = total;
  }

  consume(): boolean {
    if (this.remaining <= 0) return false;
    this.remaining--;
    this.used++;
    return true;
  }

  /** Give a unit back (turns that only ran cheap RPC-style tools such as execute_code). */
  refund(): void {
    if (this.remaining < this.total) {
      this.remaining++;
      this.used--;
    }
  }
}
