/**
 * What an `execute_code` script does that a reading of its tool calls would not show: running
 * programs itself, deleting files, or evaluating text it builds. Such a script needs the same
 * yes a dangerous shell command needs; one that only computes, reads and writes files does not.
 */
const RUNS_PROGRAMS =
  /\b(?:os\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?|fork)|subprocess\.|pty\.spawn|commands\.getoutput|child_process|exec(?:File)?Sync\s*\(|spawnSync\s*\(|Deno\.(?:run|Command)|Bun\.spawn)/;
const DELETES_FILES =
  /\b(?:shutil\.rmtree|os\.(?:remove|unlink|rmdir|removedirs|truncate)|\.unlink\s*\(|\.rmdir\s*\(|fs\.(?:rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync|truncate|truncateSync)\b|rimraf)/;
const EVALUATES_TEXT = /(?:^|[^\w.])(?:exec|eval|compile|__import__)\s*\(/m;

export function scriptDanger(code: string): { key: string; description: string } | undefined {
  if (RUNS_PROGRAMS.test(code))
    return { key: "script_runs_programs", description: "an execute_code script that runs programs itself" };
  if (DELETES_FILES.test(code))
    return { key: "script_deletes_files", description: "an execute_code script that deletes files" };
  if (EVALUATES_TEXT.test(code))
    return { key: "script_evaluates_text", description: "an execute_code script that evaluates text as code" };
  return undefined;
}
