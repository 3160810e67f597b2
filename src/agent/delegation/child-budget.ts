import { IterationBudget } from "../budget.js";

/**
 * A subagent's budget: its own cap (`delegation.max_iterations`) on top of the parent's shared
 * budget. Every unit it consumes is also taken from the shared budget, so a delegation tree can
 * never spend more than the parent was given.
 */
export class ChildBudget extends IterationBudget {
  constructor(
    limit: number,
    readonly shared: IterationBudget,
  ) {
    super(limit);
  }

  override consume(): boolean {
    if (this.remaining <= 0) return false;
    if (!this.shared.consume()) return false;
    return super.consume();
  }

  override refund(): void {
    if (this.remaining >= this.total) return;
    super.refund();
    this.shared.refund();
  }
}
