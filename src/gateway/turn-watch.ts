/**
 * Time limits of a chat turn (`agent.gateway_timeout`, `gateway_timeout_warning`,
 * `gateway_notify_interval`): a turn past its limit is interrupted, the chat is told ahead of it
 * when the limit comes, and a chat that has seen nothing of a long turn for a while is told the
 * agent is still at it. Someone waiting in a chat cannot see a terminal: these are the signs.
 */
import type { Agent } from "../agent/agent.js";
import type { ReplyStream } from "./reply-stream.js";

export interface TurnLimits {
  /** Seconds before the turn is interrupted (0 = never). */
  timeoutSeconds: number;
  /** Seconds into the turn at which the chat hears when it will stop (0 = never). */
  warningSeconds: number;
  /** Seconds of silence after which the chat hears the agent is still working (0 = never). */
  notifySeconds: number;
}

export interface TurnWatch {
  /** Whether the turn was stopped for running too long. */
  readonly timedOut: boolean;
  stop(): void;
}

/** "30 min", "2.5 min", "45 s", "0.3 s". */
const minutes = (seconds: number) => {
  const m = seconds / 60;
  return m >= 1 ? `${Number(m.toFixed(1))} min` : `${Number(seconds.toFixed(1))} s`;
};

/** The reply in place of the answer when a turn was stopped at its limit. */
export function timedOutNote(limits: TurnLimits): string {
  return (
    `⚠ I stopped: this took longer than ${minutes(limits.timeoutSeconds)} (agent.gateway_timeout). ` +
    "Ask me to continue, or break the task into smaller steps."
  );
}

export function watchTurn(
  agent: Agent,
  stream: ReplyStream,
  limits: TurnLimits,
  say: (text: string) => Promise<void>,
  now: () => number = Date.now,
): TurnWatch {
  const started = now();
  const timers: NodeJS.Timeout[] = [];
  let timedOut = false;
  const tell = (text: string) => {
    stream.shown();
    void say(text).catch(() => undefined);
  };
  if (limits.timeoutSeconds > 0) {
    timers.push(
      setTimeout(() => {
        timedOut = true;
        agent.interrupt(`the turn ran past agent.gateway_timeout (${minutes(limits.timeoutSeconds)})`);
      }, limits.timeoutSeconds * 1000),
    );
    if (limits.warningSeconds > 0 && limits.warningSeconds < limits.timeoutSeconds) {
      timers.push(
        setTimeout(() => {
          const left = limits.timeoutSeconds - limits.warningSeconds;
          tell(
            `⏳ Still working after ${minutes(limits.warningSeconds)}; I will stop in ${minutes(left)} ` +
              "(agent.gateway_timeout). Send /stop to end it now.",
          );
        }, limits.warningSeconds * 1000),
      );
    }
  }
  if (limits.notifySeconds > 0) {
    const every = limits.notifySeconds * 1000;
    const check = () => {
      if (now() - stream.lastShownAt >= every) tell(`⏳ Still working (${minutes((now() - started) / 1000)} so far).`);
    };
    timers.push(setInterval(check, every));
  }
  return {
    get timedOut() {
      return timedOut;
    },
    stop() {
      for (const timer of timers) clearTimeout(timer);
    },
  };
}
