/**
 * The webhook `deliver: github_comment` target: the answer is posted as a comment on the issue
 * or pull request the event is about, with `GITHUB_TOKEN`. The comment URL comes from the
 * payload, which anyone who knows the route's secret can write, so the token is only ever sent
 * to the GitHub API itself (`https://api.github.com`, or `GITHUB_API_URL` for GitHub Enterprise).
 */
import { PlatformSendError, type SentMessage } from "../types.js";

type Env = Record<string, string | undefined>;

/** The comments URL of the issue or pull request in a GitHub event payload, if it has one. */
export function commentsUrlOf(payload: unknown): string | undefined {
  const p = payload as {
    issue?: { comments_url?: unknown };
    pull_request?: { comments_url?: unknown };
    discussion?: { comments_url?: unknown };
  } | null;
  const url = p?.issue?.comments_url ?? p?.pull_request?.comments_url ?? p?.discussion?.comments_url;
  return typeof url === "string" ? url : undefined;
}

export function githubApiBase(env: Env = process.env): string {
  return (env.GITHUB_API_URL?.trim() || "https://api.github.com").replace(/\/+$/, "");
}

/** Whether `url` is a path under the GitHub API base (same origin, base path prefix). */
export function isGithubApiUrl(url: string, base = githubApiBase()): boolean {
  try {
    const target = new URL(url);
    const api = new URL(base);
    const prefix = api.pathname.replace(/\/+$/, "");
    return target.origin === api.origin && (prefix === "" || target.pathname.startsWith(`${prefix}/`));
  } catch {
    return false;
  }
}

export async function postGithubComment(
  commentsUrl: string,
  text: string,
  env: Env = process.env,
): Promise<SentMessage> {
  const token = env.GITHUB_TOKEN?.trim();
  if (!token)
    throw new PlatformSendError("deliver: github_comment needs GITHUB_TOKEN in ~/.hermes/.env", { retryable: false });
  if (!isGithubApiUrl(commentsUrl, githubApiBase(env))) {
    throw new PlatformSendError(
      `refusing to send the GitHub token to ${commentsUrl}: it is not under ${githubApiBase(env)}`,
      { retryable: false },
    );
  }
  let res: Response;
  try {
    res = await fetch(commentsUrl, {
      method: "POST",
      redirect: "error",
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/vnd.github+json",
        "content-type": "application/json",
        "user-agent": "hermes-agent",
      },
      body: JSON.stringify({ body: text }),
    });
  } catch (error) {
    throw new PlatformSendError(`GitHub did not answer: ${(error as Error).message}`, { retryable: true });
  }
  if (res.ok) {
    const created = (await res.json().catch(() => ({}))) as { id?: unknown };
    return { messageId: created.id === undefined ? null : String(created.id) };
  }
  const retryAfter = Number(res.headers.get("retry-after"));
  const retryable = res.status === 429 || res.status >= 500;
  throw new PlatformSendError(`GitHub answered ${res.status} ${res.statusText}`, {
    retryable,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
  });
}
