/**
 * What the Home Assistant tools accept from a model before anything reaches the server: the
 * shape of domains, services and entity ids (they become URL path segments), and the service
 * domains no call may use.
 */

/** A domain or a service name: `light`, `turn_on`. No dots, slashes, dashes or capitals. */
export const HA_NAME = /^[a-z0-9_]+$/;
/** An entity id: `<domain>.<object_id>`, e.g. `light.kitchen`. */
export const HA_ENTITY_ID = /^[a-z0-9_]+\.[a-z0-9_]+$/;

/**
 * Service domains a model may not call, because they run code or reach the host or the network
 * from Home Assistant's side:
 * - `shell_command`, `command_line`: shell commands on the Home Assistant machine;
 * - `python_script`, `pyscript`: Python inside Home Assistant (pyscript can also start kernels);
 * - `hassio`: the Supervisor (add-on stdin, host reboot and shutdown, backup restore);
 * - `rest_command`: HTTP requests sent from Home Assistant's network.
 * `script` and `automation` stay callable: they run what the user wrote in Home Assistant.
 */
export const REFUSED_SERVICE_DOMAINS: readonly string[] = [
  "shell_command",
  "command_line",
  "python_script",
  "pyscript",
  "hassio",
  "rest_command",
];

export function isRefusedDomain(domain: string): boolean {
  return REFUSED_SERVICE_DOMAINS.includes(domain);
}

/** Why `domain` is refused, in words the model can pass on to the user. */
export function refusalMessage(domain: string): string {
  return (
    `Calling "${domain}" services is not allowed from here: that domain runs code or reaches the host ` +
    `or network from Home Assistant (refused domains: ${REFUSED_SERVICE_DOMAINS.join(", ")}). ` +
    "Do not retry it another way; the user can run it in Home Assistant itself."
  );
}
