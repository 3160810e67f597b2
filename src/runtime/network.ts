/**
 * `network.force_ipv4`: on a host whose IPv6 route is broken, a name with both an AAAA and an A
 * record can make every connection wait for the IPv6 attempt to time out. Loaded only when the
 * key is on, so other runs never load node:dns.
 *
 * Every client in the process connects through `net.connect` with the default `dns.lookup`:
 * node:http and node:https (the model client), and the global fetch (undici passes no lookup of
 * its own and leaves the family choice to the process default unless told otherwise). Putting
 * IPv4 answers first makes the first address an IPv4 one; turning the family race off makes that
 * the only address tried, so no connection waits on IPv6. A name with only an AAAA record still
 * connects over IPv6.
 */
import dns from "node:dns";
import net from "node:net";

/** Makes every later connection of this process prefer IPv4 (child processes are not affected). */
export function preferIpv4(): void {
  dns.setDefaultResultOrder("ipv4first");
  net.setDefaultAutoSelectFamily(false);
}
