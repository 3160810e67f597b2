/**
 * A problem with how the agent was asked to start (a missing provider or model, a bad flag,
 * an unsupported setting): reported in one or two lines without a stack trace. The CLI exits
 * with code 2 on it; servers refuse to start and say why.
 */
export class UsageError extends Error {
  override name = "UsageError";
}
