/**
 * Webhook delivery as Telegram does it: the oldest unconfirmed update is POSTed to the bot's URL
 * with its secret token header, one at a time; anything but a 200 is retried.
 */
import { request } from "node:http";

export interface PushTarget {
  url: string;
  secret?: string;
}

export class WebhookPusher {
  lastError: string | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;

  constructor(
    readonly target: PushTarget,
    /** The next update to deliver, if any. */
    private readonly next: () => { update_id: number } | undefined,
    private readonly delivered: (updateId: number) => void,
  ) {}

  /** Starts delivering (or carries on, if it already is). */
  kick(): void {
    this.wake?.();
    if (this.running) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async run(): Promise<void> {
    for (let update = this.next(); update && !this.stopped; update = this.next()) {
      const status = await post(this.target, JSON.stringify(update)).catch((error: Error) => {
        this.lastError = error.message;
        return 0;
      });
      if (status === 200) {
        this.delivered(update.update_id);
        continue;
      }
      if (status) this.lastError = `Wrong response from the webhook: ${status}`;
      // Telegram backs off between attempts; a short pause (cut short by a stop) stands in for it.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}

function post(target: PushTarget, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      target.url,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          ...(target.secret ? { "x-telegram-bot-api-secret-token": target.secret } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
