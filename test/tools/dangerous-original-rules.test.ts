/**
 * Approval rules carried over from the original's own tests: absolute-path rm, sudo flags,
 * git branch force-delete, Hermes' own processes and services, kills of looked-up pids, cloud
 * metadata endpoints, package-manager uninstalls, 8-bit escapes and the wording of write rules.
 * Every row pins the whole result: key and description for a command that needs approval,
 * nothing for one that does not. Commands are only classified, never run.
 */
import { describe } from "node:test";
import { check } from "./dangerous-rows.js";

describe("rm of an absolute path", () => {
  check([
    ["rm -f /tmp/a.py /tmp/b.py", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ["rm -f /var/tmp/x", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ["rm -f /tmp/nested/../x.py", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ["rm -f /tmp/x.py; touch /tmp/pwned", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ["rm -f ./x /y", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ["rm build/x.o", null],
    ["rm -f build/x.o ./y", null],
    ["rm -- -x", null],
  ]);
});

describe("the agent's own scratch scripts under /tmp", () => {
  check([
    ["rm /tmp/hermes-verify-example.py", null],
    ["rm -f /tmp/hermes-verify-example.py", null],
    ["rm -f /tmp/hermes-ad-hoc-a_b.py", null],
    ["rm -f /tmp/hermes-verify-*.py", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ['rm -f "/tmp/hermes-verify-x.py"', ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ["rm -v /tmp/hermes-verify-x.py", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    [
      "sudo rm -f /tmp/hermes-verify-x.py",
      ["delete_system_path", "delete by absolute path (outside the working tree)"],
    ],
    ["rm -f /var/tmp/hermes-verify-x.py", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ["rm -f /tmp/hermes-verify-x.sh", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    [
      "rm -f /tmp/hermes-verify-x.py /tmp/hermes-verify-y.py",
      ["delete_system_path", "delete by absolute path (outside the working tree)"],
    ],
    [
      "rm -f /tmp/hermes-verify-../../etc/x.py",
      ["delete_system_path", "delete by absolute path (outside the working tree)"],
    ],
    [
      "rm -f /tmp/hermes-verify-x.py; touch /tmp/pwned",
      ["delete_system_path", "delete by absolute path (outside the working tree)"],
    ],
    ["rm -f /tmp/hermes-verify-$(id).py", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
    ["rm -f /tmp/hermes-other-x.py", ["delete_system_path", "delete by absolute path (outside the working tree)"]],
  ]);
});

describe("sudo flags", () => {
  check([
    ["sudo -s", ["sudo_shell_or_list", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -a", ["sudo_shell_or_list", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -n -s", ["sudo_shell_or_list", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -sa", ["sudo_shell_or_list", "sudo with combined-flag privilege escalation"]],
    ["sudo -las", ["sudo_shell_or_list", "sudo with combined-flag privilege escalation"]],
    ["sudo -su root", ["sudo_shell_or_list", "sudo with combined-flag privilege escalation"]],
    ["sudo -kn -sa id", ["sudo_shell_or_list", "sudo with combined-flag privilege escalation"]],
    ["sudo -nu root -S id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo --us root -S id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo FOO=bar -S id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -u -S id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -S id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -A id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -nS id", ["sudo_password_stdin", "sudo with combined-flag privilege escalation"]],
    ["sudo --stdin id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo --st id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo --askpass id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo --a id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -uroot -S id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -p'pw: ' -S id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo --user=root -S id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -g wheel -C 5 -A id", ["sudo_password_stdin", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["doas -s", ["sudo_shell_or_list", "sudo with privilege flag (stdin/askpass/shell/list)"]],
    ["sudo -u root -i", null],
    ["sudo --shell id", null],
    ["sudo --s id", null],
    ["sudo -- ls -las", null],
    ["sudo -H ls -la", null],
    ["sudo -u alice ls -a", null],
    ["sudo -psa id", null],
    ["sudo --user root ls -s", null],
    ["sudo --prompt=x ls -a", null],
    ["sudo -E env FOO=1 tar -xas a.tar", null],
  ]);
});

describe("git branch force-delete with long flags", () => {
  check([
    ["git branch --delete --force topic", ["git_branch_delete", "git branch -d/-D (deletes a branch)"]],
    ["git branch --force --delete topic", ["git_branch_delete", "git branch -d/-D (deletes a branch)"]],
    ["git branch --delete -f topic", ["git_branch_delete", "git branch -d/-D (deletes a branch)"]],
    ["git branch -f --delete topic", ["git_branch_delete", "git branch -d/-D (deletes a branch)"]],
    ["git branch --delete topic", null],
    ["git branch --force topic", null],
    ["git branch -d topic", ["git_branch_delete", "git branch -d/-D (deletes a branch)"]],
    ["git branch -D topic", ["git_branch_delete", "git branch -d/-D (deletes a branch)"]],
  ]);
});

describe("launchctl on a Hermes job", () => {
  check([
    ["launchctl stop com.example.unrelated", null],
    [
      "launchctl stop ai.hermes.gateway",
      ["launchd_stop_restart", "stop/restart the Hermes launchd service (cuts off the agent)"],
    ],
    [
      "launchctl kickstart gui/501/ai.hermes.update-checker",
      ["launchd_stop_restart", "stop/restart the Hermes launchd service (cuts off the agent)"],
    ],
    ['launchctl kick"start" -k gui/501/ai.hermes.update-checker', null],
    [
      'launchctl kick"start" -k gui/501/ai.hermes.gateway',
      ["launchd_stop_restart", "stop/restart the Hermes launchd service (cuts off the agent)"],
    ],
    ["launchctl print gui/501/ai.hermes.gateway", null],
    ["launchctl bootstrap gui/501 ai.hermes.gateway.plist", null],
    ["launchctl unload ~/Library/LaunchAgents/com.foo.plist", null],
    ["launchctl remove ai.hermes2", null],
    [
      "launchctl disable gui/501/ai.hermes.gateway",
      ["launchd_stop_restart", "stop/restart the Hermes launchd service (cuts off the agent)"],
    ],
    [
      "label=ai.hermes.gateway; launchctl bootout gui/501/$label",
      ["launchd_stop_restart", "stop/restart the Hermes launchd service (cuts off the agent)"],
    ],
  ]);
});

describe("the gateway: stopped, restarted or detached", () => {
  check([
    ["python -m hermes_cli.main gateway run --replace", null],
    [
      "python -m hermes_cli.main gateway run --replace &",
      [
        "hermes_gateway_detached",
        "start the gateway outside systemd (use 'systemctl --user restart hermes-gateway' instead)",
      ],
    ],
    [
      "nohup hermes gateway run",
      [
        "hermes_gateway_detached",
        "start the gateway outside systemd (use 'systemctl --user restart hermes-gateway' instead)",
      ],
    ],
    [
      "setsid hermes gateway run",
      [
        "hermes_gateway_detached",
        "start the gateway outside systemd (use 'systemctl --user restart hermes-gateway' instead)",
      ],
    ],
    [
      "hermes gateway run & disown",
      [
        "hermes_gateway_detached",
        "start the gateway outside systemd (use 'systemctl --user restart hermes-gateway' instead)",
      ],
    ],
    [
      "hermes gateway run; disown",
      [
        "hermes_gateway_detached",
        "start the gateway outside systemd (use 'systemctl --user restart hermes-gateway' instead)",
      ],
    ],
    ["hermes gateway run && echo up", null],
    [
      "hermes gateway stop",
      ["hermes_gateway_control", "stop or restart the Hermes gateway (cuts off the running agent)"],
    ],
    [
      "hermes -p work gateway restart",
      ["hermes_gateway_control", "stop or restart the Hermes gateway (cuts off the running agent)"],
    ],
    [
      "python3 hermes.py gateway restart",
      ["hermes_gateway_control", "stop or restart the Hermes gateway (cuts off the running agent)"],
    ],
    [
      "uv run hermes gateway stop",
      ["hermes_gateway_control", "stop or restart the Hermes gateway (cuts off the running agent)"],
    ],
    ["hermes gateway start", null],
    ["echo hermes gateway stop", null],
    ["git commit -m 'hermes gateway stop'", null],
    ["hermes update", ["hermes_update", "hermes update (restarts the gateway and its running agents)"]],
    ["sudo hermes update", ["hermes_update", "hermes update (restarts the gateway and its running agents)"]],
    ["hermes -p x update", null],
    ["hermes updates", null],
    ["echo hermes update", null],
  ]);
});

describe("kills of looked-up processes and of the agent itself", () => {
  check([
    ["kill -9 $(pgrep -f x)", ["kill_via_lookup", "kill whatever pgrep/pidof returns (may include the agent itself)"]],
    ["kill -TERM $(pidof y)", ["kill_via_lookup", "kill whatever pgrep/pidof returns (may include the agent itself)"]],
    ["kill `pgrep x`", ["kill_via_lookup", "kill whatever pgrep/pidof returns (may include the agent itself)"]],
    [
      'kill -9 $(pgrep -f "hermes.*gateway")',
      ["kill_via_lookup", "kill whatever pgrep/pidof returns (may include the agent itself)"],
    ],
    [
      "kill $(cat /run/hermes.pid)",
      ["hermes_self_termination", "kill the Hermes agent or gateway process (self-termination)"],
    ],
    ["kill $(cat /run/app.pid)", null],
    ["kill 12345", null],
    [
      "pgrep hermes | xargs kill",
      ["hermes_self_termination", "kill the Hermes agent or gateway process (self-termination)"],
    ],
    ["pgrep -f x", null],
    ["pkill -f hermesd", null],
    ["pkill -f gatewayd", null],
    ["pkill -f hermes2", null],
    ["pkill -f hermes_backend", null],
    ["pkill -f hermes", ["hermes_self_termination", "kill the Hermes agent or gateway process (self-termination)"]],
    [
      "pkill -f hermes-gateway",
      ["hermes_self_termination", "kill the Hermes agent or gateway process (self-termination)"],
    ],
    ["pkill -f cli.py", ["hermes_self_termination", "kill the Hermes agent or gateway process (self-termination)"]],
    ["pkill -f cli.pyc", null],
    ["killall gateway", ["hermes_self_termination", "kill the Hermes agent or gateway process (self-termination)"]],
    [
      "taskkill /IM hermes.exe",
      ["hermes_self_termination", "kill the Hermes agent or gateway process (self-termination)"],
    ],
  ]);
});

describe("how a sensitive file is written", () => {
  check([
    ["echo TOKEN=x > .env", ["env_file_write", "overwrite a project env/config file (.env)"]],
    ["cp .env.local .env", ["env_file_write", "overwrite a project env/config file (.env)"]],
    ["printenv | tee .env", ["env_file_write", "overwrite a project env/config file (.env)"]],
    ["sed -i s/a/b/ .env", ["env_file_write", "overwrite a project env/config file (.env)"]],
    ["echo x > config.yaml", ["project_config_write", "overwrite a project env/config file"]],
    ["mv tmp/generated.yaml config/config.yaml", ["project_config_write", "overwrite a project env/config file"]],
    ["echo x > /etc/hosts", ["system_file_write", "overwrite system config or another system file"]],
    ["echo x | tee /etc/hosts", ["system_file_write", "write system config or another system file via tee"]],
    ["cp a /etc/hosts", ["system_file_write", "copy or move a file into system config or another system directory"]],
    [
      "mv a /private/etc/hosts",
      ["system_file_write", "copy or move a file into system config or another system directory"],
    ],
    [
      "sed -i s/a/b/ /private/etc/hosts",
      ["system_file_write", "in-place edit of system config or another system file"],
    ],
    ["perl -pi -e s/a/b/ /etc/hosts", ["system_file_write", "in-place edit of system config or another system file"]],
    ["echo x > /usr/bin/foo", ["system_file_write", "overwrite system config or another system file"]],
    ["dd if=a of=/etc/x", ["system_file_write", "write to a system file"]],
    ["truncate -s 0 /etc/motd", ["system_file_write", "write to a system file"]],
    [
      "perl -i -pe s/a/b/ ~/.hermes/config.yaml",
      ["hermes_config_write", "in-place edit of Hermes config, auth or .env"],
    ],
    ["ruby -i -pe 'x' ~/.hermes/config.yaml", ["hermes_config_write", "in-place edit of Hermes config, auth or .env"]],
    ["sed -i s/a/b/ ~/.hermes/.env", ["hermes_config_write", "in-place edit of Hermes config, auth or .env"]],
    ["echo x > ~/.hermes/.env", ["hermes_config_write", "write to Hermes config, auth or .env"]],
    ["cp a ~/.hermes/config.yaml", ["hermes_config_write", "write to Hermes config, auth or .env"]],
    ["chmod +x x.sh && ./x.sh", ["chmod_exec", "chmod +x followed by immediate execution"]],
  ]);
});

describe("8-bit terminal escapes", () => {
  check([
    ["\u009b31mrm\u009b0m -rf /", ["recursive_delete", "recursive delete"]],
    ["\u009b1;31mdd\u009b0m if=/dev/zero of=/dev/sda", ["raw_device_write", "write to a raw disk device"]],
    ["\u009d0;title\u0007rm -rf /", ["recursive_delete", "recursive delete"]],
    ["ls \u009b0m-la", null],
  ]);
});

describe("cloud metadata endpoints", () => {
  check([
    [
      "curl http://169.254.169.254/latest/meta-data/",
      ["cloud_metadata_access", "cloud metadata endpoint access (instance credentials)"],
    ],
    [
      "wget http://100.100.100.200/x",
      ["cloud_metadata_access", "cloud metadata endpoint access (instance credentials)"],
    ],
    [
      'curl -H "Metadata-Flavor: Google" http://metadata.google.internal/x',
      ["cloud_metadata_access", "cloud metadata endpoint access (instance credentials)"],
    ],
    [
      "curl http://[fd00:ec2::254]/x",
      ["cloud_metadata_access", "cloud metadata endpoint access (instance credentials)"],
    ],
    [
      "export URL=http://169.254.169.254",
      ["cloud_metadata_access", "cloud metadata endpoint access (instance credentials)"],
    ],
    ["curl http://169.254.1.1/status", null],
    ["curl https://example.com/api/169.254.169.2540", null],
    ["curl https://metadata.google.internal.example.com/", null],
    ["curl https://x.metadata.google.internal/", null],
    ["echo 1169.254.169.254", null],
    ["ping 169.254.100.100", null],
  ]);
});

describe("package-manager uninstalls", () => {
  check([
    ["npm uninstall -g left-pad", ["package_uninstall", "package manager uninstall"]],
    ["npm r left-pad", ["package_uninstall", "package manager uninstall"]],
    ["npm unlink x", ["package_uninstall", "package manager uninstall"]],
    ["npm --prefix ./app uninstall left-pad", ["package_uninstall", "package manager uninstall"]],
    ["npm -g rm x", ["package_uninstall", "package manager uninstall"]],
    ["npm install uninstall", null],
    ["npm run uninstall", null],
    ["pnpm un -g x", ["package_uninstall", "package manager uninstall"]],
    ["pnpm remove x", ["package_uninstall", "package manager uninstall"]],
    ["pnpm unlink x", null],
    ["yarn global remove x", ["package_uninstall", "package manager uninstall"]],
    ["yarn remove x", ["package_uninstall", "package manager uninstall"]],
    ["yarn --cwd ./app remove x", ["package_uninstall", "package manager uninstall"]],
    ["yarn add remove", null],
    ["yarn global add x", null],
    ["pip3 uninstall x", ["package_uninstall", "package manager uninstall"]],
    ["pip --proxy http://p:1 uninstall -y requests", ["package_uninstall", "package manager uninstall"]],
    ["pip install uninstall", null],
    ["pip2 uninstall x", null],
    ["brew rm x", ["package_uninstall", "package manager uninstall"]],
    ["brew uninstall x", ["package_uninstall", "package manager uninstall"]],
    ["brew upgrade x", null],
    ["apt remove x", ["package_uninstall", "package manager uninstall"]],
    ["sudo apt-get purge x", ["package_uninstall", "package manager uninstall"]],
    ["apt-get autoremove", ["package_uninstall", "package manager uninstall"]],
    ["apt install x", null],
    ["cd app && yarn --cwd ./app remove left-pad", ["package_uninstall", "package manager uninstall"]],
    ["echo npm uninstall x", null],
    ['git commit -m "document npm uninstall usage"', null],
  ]);
});
