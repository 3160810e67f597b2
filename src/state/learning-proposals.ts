/**
 * What the background review proposed while `learning.mode: review`: memory entries and skill
 * changes waiting for the user's yes or no (`/learn`, `hermes learn list|apply|reject`), in
 * `$HERMES_HOME/learning/proposals.json`.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";
import { withFileLockSync } from "./file-lock.js";

export interface Proposal {
  id: number;
  createdAt: number;
  sessionId: string;
  /** `skill_merge`: the curator's consolidation ({skills, keep, content}; see src/tools/skills/skill-merge.ts). */
  kind: "memory" | "skill" | "skill_merge";
  /** The arguments of the `memory` or `skill_manage` call that would apply it (or of the merge). */
  args: Record<string, unknown>;
  /** One line for listings. */
  summary: string;
  /** Why the review proposed it. */
  reason: string;
  /** The memory directory it belongs to (a gateway user's scope), when not the home's own. */
  memoryDir?: string;
}

interface QueueFile {
  nextId: number;
  proposals: Proposal[];
}

export class ProposalQueue {
  readonly path: string;

  constructor(home: string) {
    this.path = join(home, "learning", "proposals.json");
  }

  add(proposals: Array<Omit<Proposal, "id">>): Proposal[] {
    if (proposals.length === 0) return [];
    return this.change((queue) => {
      const added = proposals.map((proposal) => ({ ...proposal, id: queue.nextId++ }));
      queue.proposals.push(...added);
      return added;
    });
  }

  list(): Proposal[] {
    return this.read().proposals;
  }

  /** Removes and returns the proposals with these ids (all when `ids` is undefined). */
  take(ids?: readonly number[]): Proposal[] {
    return this.change((queue) => {
      const taken = queue.proposals.filter((proposal) => ids === undefined || ids.includes(proposal.id));
      queue.proposals = queue.proposals.filter((proposal) => !taken.includes(proposal));
      return taken;
    });
  }

  private change<T>(update: (queue: QueueFile) => T): T {
    mkdirSync(dirname(this.path), { recursive: true });
    return withFileLockSync(`${this.path}.lock`, () => {
      const queue = this.read();
      const result = update(queue);
      atomicWriteFile(this.path, `${JSON.stringify(queue, null, 2)}\n`);
      return result;
    });
  }

  private read(): QueueFile {
    if (!existsSync(this.path)) return { nextId: 1, proposals: [] };
    let parsed: Partial<QueueFile>;
    try {
      parsed = JSON.parse(readFileSync(this.path, "utf8")) as Partial<QueueFile>;
    } catch (error) {
      // Starting afresh would drop what is queued: the user decides what to do with the file.
      throw new Error(
        `${this.path} is not valid JSON (${(error as Error).message}); fix it or move it aside to start an empty queue`,
      );
    }
    return { nextId: parsed.nextId ?? 1, proposals: Array.isArray(parsed.proposals) ? parsed.proposals : [] };
  }
}
