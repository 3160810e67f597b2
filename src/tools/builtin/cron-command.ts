/**
 * `/cron` as typed in a chat or the terminal: list the jobs in scope, or pause, resume, remove
 * or run one by id. A chat sees its own jobs only; the terminal (no scope) sees every job.
 */
import type { CronToolBackend, CronToolOrigin } from "./cronjob.js";

export const CRON_COMMAND_USAGE = "Usage: /cron, or /cron pause|resume|remove|run <id>";

interface JobView {
  id: string;
  name: string;
  schedule: string;
  state: string;
  next_run: string | null;
}

function listLine(job: JobView): string {
  const next = job.next_run ? `, next ${job.next_run.slice(0, 16).replace("T", " ")} UTC` : "";
  return `${job.id}  ${job.name}  [${job.schedule}]  ${job.state}${next}`;
}

export async function cronCommand(
  scheduler: CronToolBackend,
  scope: CronToolOrigin | null,
  args: string,
): Promise<string> {
  const [action, id] = args.split(/\s+/).filter(Boolean);
  try {
    if (!action) {
      const jobs = (await scheduler.list(scope)) as JobView[];
      if (jobs.length === 0) {
        return scope ? "No scheduled jobs for this chat. Ask me to schedule one." : "No scheduled jobs.";
      }
      return jobs.map(listLine).join("\n");
    }
    if (!id) return CRON_COMMAND_USAGE;
    switch (action) {
      case "pause":
        await scheduler.pause(id, scope);
        return `Paused ${id}.`;
      case "resume":
        await scheduler.resume(id, scope);
        return `Resumed ${id}.`;
      case "remove":
        await scheduler.remove(id, scope);
        return `Removed ${id}.`;
      case "run":
        await scheduler.runSoon(id, scope);
        return `${id} runs within a minute (when a gateway or \`hermes cron tick\` is ticking).`;
      default:
        return CRON_COMMAND_USAGE;
    }
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
