/** A backup or restore that cannot go on: one line for the user, exit code 1. */
export class BackupError extends Error {
  readonly exitCode = 1;
  override name = "BackupError";
}
