/**
 * Container CLIs pointed at another daemon or stopping containers, read tools told to run a
 * helper program, and find words the shell may expand into a destructive action.
 * Every row pins the whole result: key and description for a command that needs approval,
 * nothing for one that does not. Commands are only classified, never run.
 */
import { describe } from "node:test";
import { check } from "./dangerous-rows.js";

describe("docker and podman daemons", () => {
  check([
    [
      "docker -H ssh://prod ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    [
      "docker --host=tcp://x ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    [
      "docker --host tcp://x ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    [
      "docker --context prod ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    ["docker -c prod ps", ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"]],
    [
      "docker --context=prod ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    [
      "docker context use prod",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    ["docker context ls", null],
    [
      "DOCKER_HOST=ssh://x docker ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    [
      "DOCKER_CONTEXT=prod docker ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    [
      "CONTAINER_HOST=ssh://x podman ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    [
      "podman --url ssh://x ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    [
      "podman --connection prod ps",
      ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"],
    ],
    ["podman -r ps", ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"]],
    ["podman --remote ps", ["container_daemon_redirect", "docker/podman pointed at another (possibly remote) daemon"]],
    ["podman ps", null],
    ["docker run -h myhost img", null],
    ["docker run --context x img", null],
    ["docker -h", null],
    ["docker ps", null],
  ]);
});

describe("container lifecycle", () => {
  check([
    [
      "docker compose down",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    [
      "docker compose -f x.yml down",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    [
      "docker compose restart web",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    [
      "docker-compose stop",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    [
      "docker-compose kill",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    ["docker compose up -d", null],
    ["docker compose ps", null],
    [
      "docker stop web",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    [
      "docker --debug stop web",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    [
      "docker kill web",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    [
      "docker restart web",
      ["container_lifecycle", "stop, restart or tear down containers (docker stop/kill/restart, compose down)"],
    ],
    ["docker start web", null],
    ["docker run --rm img stop", null],
    ["podman stop web", null],
  ]);
});

describe("read tools running a program", () => {
  check([
    [
      "rg --pre ./x pat",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    [
      "rg --pre=./x pat",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    [
      "rg --hostname-bin ./x p",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    ["rg --pretty p", null],
    ["rg -- --pre x", null],
    [
      "sort --compress-program=./x f",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    [
      "sort --compress-prog=gzip f",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    ["sort --co x", null],
    ["sort -k2 f", null],
    [
      "ag --pager less x",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    [
      "ag --pager=less x",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    [
      "man --pager=cat ls",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    [
      "man --html=firefox ls",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    [
      "man -P cat ls",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    [
      "man -Hfirefox ls",
      ["read_tool_runs_program", "read tool told to run another program (rg --pre, sort --compress-program, --pager)"],
    ],
    ["man ls", null],
  ]);
});

describe("find words the shell expands", () => {
  check([
    ["find . -{delete,print}", ["find_dynamic_action", "find word the shell may expand into -delete or -exec"]],
    [
      "find . -{print,execdir} rm {} +",
      ["find_dynamic_action", "find word the shell may expand into -delete or -exec"],
    ],
    ["find . -del*", ["find_dynamic_action", "find word the shell may expand into -delete or -exec"]],
    ["find . -dele?", null],
    ["find . -exec[a-z]", ["find_dynamic_action", "find word the shell may expand into -delete or -exec"]],
    ["find . -name '-del*'", null],
    ['find . -name "-{delete}"', null],
    ["find . -{name,print}", null],
    ["find . -name '*.py' -print", null],
    ["ls -{delete,print}", null],
  ]);
});
