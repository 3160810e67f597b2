/**
 * The destructive-command rules (multi-call binaries, wildcard deletes, /dev/null over a file,
 * permission wipes, rsync --delete, sed that empties a file, crontab -r, Docker removals), one
 * clause at a time, each next to a near miss that must stay an ordinary command.
 * Everything here is only classified, never run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeCommand } from "../../src/tools/approval/command-analysis.js";
import { detectDangerousCommand } from "../../src/tools/approval/dangerous.js";
import { destructiveFinding } from "../../src/tools/approval/destructive.js";

/** Commands and the key they need approval under. */
const FLAGGED: Array<[string, string]> = [
  ["busybox rmdir ./old", "recursive_delete"],
  ["busybox shred ./secret.txt", "recursive_delete"],
  ["toybox rm -r ./build", "recursive_delete"],
  ["toybox rm --recursive ./build", "recursive_delete"],
  ["rm -f *.log", "wildcard_delete"],
  ["rm ./build/?.o", "wildcard_delete"],
  ["rm ./notes.txt ./build/*.o", "wildcard_delete"],
  ["ln -sf /dev/null ./keep.txt", "destroy_file_contents"],
  ["install -m 000 /dev/null ./keep.txt", "destroy_file_contents"],
  ["cat /dev/null > ./keep.txt", "destroy_file_contents"],
  ["chmod -R 0000 ./build", "recursive_permission_change"],
  ["chmod --recursive 000 ./build", "recursive_permission_change"],
  ["chmod -vR 000 ./build", "recursive_permission_change"],
  ["chmod -R go-rwx ./build", "recursive_permission_change"],
  ["chmod -R a-w ./build", "recursive_permission_change"],
  ["chmod -R u-rwX ./build", "recursive_permission_change"],
  ["chgrp -R www ./build", "recursive_permission_change"],
  ["chown --recursive deploy ./build", "recursive_permission_change"],
  ["rsync -a --del ./a/ ./b/", "rsync_delete"],
  ["rsync -a --delete-after ./a/ ./b/", "rsync_delete"],
  ["rsync -a --remove-source-files ./a/ ./b/", "rsync_delete"],
  ["sed -i '1,$d' ./keep.txt", "destroy_file_contents"],
  ["sed --in-place d ./keep.txt", "destroy_file_contents"],
  ["sed --in-place=.bak d ./keep.txt", "destroy_file_contents"],
  ["sed -i.bak d ./keep.txt", "destroy_file_contents"],
  ["sed -ni d ./keep.txt", "destroy_file_contents"],
  ["sed -i ' d ' ./keep.txt", "destroy_file_contents"],
  ["crontab -ir", "crontab_remove"],
  ["crontab -u alice -r", "crontab_remove"],
  ["podman rm -f web", "docker_remove"],
  ["docker rm --force web", "docker_remove"],
  ["docker rm -vf web", "docker_remove"],
  ["docker rmi -f app:old", "docker_remove"],
  ["docker system prune", "docker_remove"],
  ["docker volume rm data", "docker_remove"],
  ["docker volume prune", "docker_remove"],
  ["docker container rm web", "docker_remove"],
  ["docker container prune", "docker_remove"],
  ["docker image rm app:old", "docker_remove"],
  ["docker image prune", "docker_remove"],
  ["docker RM -F web", "docker_remove"],
];

/** One clause away from a flagged command, and ordinary work. */
const ORDINARY = [
  "man rmdir",
  "which shred",
  "busybox rm ./notes.txt",
  "busybox rm ./old-report",
  "busybox ls -r ./build",
  "busybox mv -r ./a ./b",
  "rm './build/*'",
  'rm "*.txt"',
  "rm \\*",
  "diff /dev/null new.txt",
  "ln -s ./keep.txt /dev/null",
  "echo hi | tee ./out.log > /dev/null",
  "tee ./out.log < input.txt",
  "cat /dev/null >> ./keep.txt",
  "cat /dev/null ./a.txt > ./keep.txt",
  "cat ./a.txt > ./keep.txt",
  "cat /dev/null 2> ./err.txt",
  "cat > ./keep.txt",
  "echo /dev/null > ./path.txt",
  "chmod -R 700 ./build",
  "chmod -R 0 ./build",
  "chmod -R 1000 ./build",
  "chmod -R 0001 ./build",
  "chmod -R u+x ./build",
  "chmod -R g+w ./shared-rw",
  "chmod -R g-s ./build",
  "chmod 000 ./key.pem",
  "chown deploy ./file",
  "chown deploy ./build-dir",
  "ls -R ./build",
  "rsync -a --delay-updates ./a/ ./b/",
  "rsync -a ./--delete-me/ ./b/",
  "rsync -a --exclude=--delete ./a/ ./b/",
  "sed -i 's/a/b/' ./keep.txt",
  "sed -n d ./keep.txt",
  "sed d ./notes.txt",
  "sed -i 2d ./keep.txt",
  "sed -i '/^$/d' ./keep.txt",
  "sed -i 's/x/y/' docs.md",
  "sed d my-index.txt",
  "grep -i d ./notes.txt",
  "crontab -l",
  "crontab -l -u web-runner",
  "crontab -e",
  "git rm -f ./old.txt",
  "podman rm web",
  "docker rm web",
  "docker rm my-stuff",
  "docker rmi app:old",
  "docker ps -f name=web",
  "docker system df",
  "docker volume ls",
  "docker container ls",
  "docker image ls",
  "docker network rm backend",
  "docker network prune",
];

test("each destructive spelling needs approval under its own key", () => {
  for (const [command, key] of FLAGGED) {
    assert.equal(detectDangerousCommand(command).key, key, command);
  }
});

test("near misses of the destructive rules need no approval", () => {
  for (const command of ORDINARY) {
    const found = detectDangerousCommand(command);
    assert.equal(found.dangerous, false, `${command} was flagged as ${found.key}`);
  }
});

test("a destructive finding names its rule and says what it saw", () => {
  const findings: Array<[string, string, string]> = [
    ["busybox rm -rf ./build", "recursive_delete", "recursive delete through a multi-call binary (busybox/toybox)"],
    ["rm ./build/*", "wildcard_delete", "delete every file a wildcard matches"],
    ["cp /dev/null ./keep.txt", "destroy_file_contents", "/dev/null written over a file"],
    ["chmod -R 000 ./build", "recursive_permission_change", "recursive ownership change or permission wipe"],
    ["rsync -a --delete ./a/ ./b/", "rsync_delete", "rsync deleting files at the destination"],
    ["sed -i d ./keep.txt", "destroy_file_contents", "an in-place sed that deletes every line"],
    ["crontab -r", "crontab_remove", "remove every cron job (crontab -r)"],
    ["docker rm -f web", "docker_remove", "force-remove Docker containers, images or volumes"],
  ];
  for (const [command, key, description] of findings) {
    assert.deepEqual(destructiveFinding(analyzeCommand(command)), { key, description }, command);
  }
});

test("the destructive rules judge /dev/null as a source, not as a destination", () => {
  // Copying a file onto /dev/null is the opaque rules' business (moving a file into the void);
  // here only /dev/null written over a file counts.
  assert.equal(destructiveFinding(analyzeCommand("cp ./keep.txt /dev/null")), null);
  assert.equal(destructiveFinding(analyzeCommand("cp /dev/null")), null);
  assert.deepEqual(destructiveFinding(analyzeCommand("cp /dev/null ./keep.txt")), {
    key: "destroy_file_contents",
    description: "/dev/null written over a file",
  });
});
